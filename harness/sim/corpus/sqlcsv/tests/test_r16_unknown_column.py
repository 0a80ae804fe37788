from sqlcsv_testkit import refused


def test_unknown_column_in_any_clause_exits_3():
    assert refused("SELECT height FROM people") == 3
    assert refused("SELECT name FROM people ORDER BY height") == 3
    assert refused("SELECT name FROM people WHERE height > 2") == 3


def test_bad_qualifier_and_ambiguous_name_exit_3():
    assert refused("SELECT orders.name FROM people") == 3
    assert refused("SELECT customer FROM orders JOIN customers ON orders.customer = customers.customer") == 3
