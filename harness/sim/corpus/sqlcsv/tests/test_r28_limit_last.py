from sqlcsv_testkit import column


def test_limit_after_order_and_where():
    assert column("SELECT name FROM people WHERE age > 10 ORDER BY age DESC LIMIT 2") == ["Cy", "Ann"]
    assert column("SELECT DISTINCT age FROM people ORDER BY age LIMIT 2 OFFSET 1") == ["31", "100"]
