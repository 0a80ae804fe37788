from sqlcsv_testkit import rows


def test_one_row_per_group_in_first_appearance_order():
    assert rows("SELECT age, COUNT(*) FROM people GROUP BY age") == [["31", "2"], ["9", "1"], ["100", "1"]]


def test_null_group_and_no_rows():
    files = {"o.csv": "who,n\nx,1\n,2\ny,4\n,8\nx,16\n"}
    assert rows("SELECT who, SUM(n) FROM o GROUP BY who", files) == [["x", "17"], ["", "10"], ["y", "4"]]
    assert rows("SELECT age, COUNT(*) FROM people WHERE age > 1000 GROUP BY age") == []


def test_groups_by_every_group_by_column():
    files = {"p.csv": "a,b\nx,1\nx,2\ny,1\nx,1\n"}
    assert rows("SELECT a, b, COUNT(*) FROM p GROUP BY a, b", files) == [["x", "1", "2"], ["x", "2", "1"], ["y", "1", "1"]]
