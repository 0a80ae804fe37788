from sqlcsv_testkit import run


def test_null_in_each_format():
    sql = "SELECT name, city FROM people WHERE name = 'Cy'"
    assert run(sql, fmt="table").lines == ["name | city", "-----+-----", "Cy   |     "]
    assert run(sql).lines == ["name,city", "Cy,"]
    assert run(sql, fmt="json").out == '[{"name": "Cy", "city": null}]\n'


def test_lone_null_column_in_csv():
    assert run("SELECT city FROM people WHERE name = 'Cy'").out == 'city\n""\n'
