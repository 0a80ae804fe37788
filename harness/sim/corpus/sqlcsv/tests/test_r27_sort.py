from sqlcsv_testkit import column


def test_nulls_first_ascending_last_descending():
    assert column("SELECT city FROM people ORDER BY city") == ["", "Austin", "Boston", "Denver"]
    assert column("SELECT city FROM people ORDER BY city DESC") == ["Denver", "Boston", "Austin", ""]


def test_ties_keep_natural_order_both_ways():
    assert column("SELECT name FROM people WHERE age = 31 ORDER BY age DESC") == ["Ann", "Dee"]
    assert column("SELECT name FROM people ORDER BY age DESC") == ["Cy", "Ann", "Dee", "bob"]
