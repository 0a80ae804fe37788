from sqlcsv_testkit import rows


def test_sum_avg_min_max_types():
    assert rows("SELECT SUM(age), AVG(age), SUM(score), MIN(score), MAX(name) FROM people") == [["171", "42.75", "15.75", "2.5", "bob"]]


def test_nulls_ignored_and_no_values_give_null():
    assert rows("SELECT SUM(age), AVG(score), MIN(city) FROM people WHERE age > 1000") == [["", "", ""]]
    assert rows("SELECT AVG(score) FROM people WHERE name = 'Dee'") == [[""]]
