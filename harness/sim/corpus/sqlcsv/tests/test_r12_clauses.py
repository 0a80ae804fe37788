from sqlcsv_testkit import column, refused


def test_where_is_optional():
    assert column("SELECT name FROM people") == ["Ann", "bob", "Cy", "Dee"]


def test_clauses_only_in_grammar_order():
    assert refused("SELECT name FROM people ORDER BY name WHERE age > 1") == 2
    assert refused("SELECT name FROM people LIMIT 1 ORDER BY name") == 2


def test_clause_keyword_needs_content():
    assert refused("SELECT name FROM people WHERE ORDER BY name") == 2
    assert refused("SELECT name FROM people WHERE") == 2
