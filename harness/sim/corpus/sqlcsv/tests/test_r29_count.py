from sqlcsv_testkit import rows


def test_count_star_and_count_column():
    assert rows("SELECT COUNT(*), COUNT(city), COUNT(score) FROM people") == [["4", "3", "3"]]


def test_count_over_no_rows_is_zero():
    assert rows("SELECT COUNT(*), COUNT(city) FROM people WHERE age > 1000") == [["0", "0"]]
