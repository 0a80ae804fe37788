from sqlcsv_testkit import rows

DUP = {"d.csv": "a,b\nx,1\nx,2\nx,1\n,\n,\n"}


def test_distinct_compares_whole_rows_and_null_equals_null():
    assert rows("SELECT DISTINCT a, b FROM d", DUP) == [["x", "1"], ["x", "2"], ["", ""]]
    assert rows("SELECT DISTINCT a FROM d", DUP) == [["x"], [""]]
