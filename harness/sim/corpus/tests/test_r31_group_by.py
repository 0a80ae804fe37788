from sqlcsv_testkit import rows


def test_one_row_per_group_in_first_appearance_order():
    assert rows("SELECT age, COUNT(*) FROM people GROUP BY age") == [["31", "2"], ["9", "1"], ["100", "1"]]


def test_null_group_and_no_rows():
    assert rows("SELECT customer, SUM(amount) FROM orders GROUP BY customer") == [["Ann", "27"], ["bob", "5"], ["Zed", "1"], ["", "3"]]
    assert rows("SELECT age, COUNT(*) FROM people WHERE age > 1000 GROUP BY age") == []
