from sqlcsv_testkit import run


def test_alias_names_columns_and_aggregates():
    assert run("SELECT name AS who, COUNT(*) AS n FROM people GROUP BY name LIMIT 1").lines == ["who,n", "Ann,1"]


def test_alias_as_order_key_and_bare_name_of_qualified_column():
    assert run("SELECT age AS years FROM people ORDER BY years DESC").lines == ["years", "100", "31", "31", "9"]
    assert run("SELECT people.name FROM people LIMIT 1").lines == ["name", "Ann"]


def test_aggregate_names_drop_spacing_and_case():
    assert run("SELECT count( * ), MAX( people . age ) FROM people").lines[0] == "COUNT(*),MAX(people.age)"
