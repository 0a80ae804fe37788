from sqlcsv_testkit import column, rows

NUMS = {"n.csv": "v\n100\n9\n-12\n10\n007\n-5\n"}


def test_integer_columns_sort_numerically():
    assert column("SELECT v FROM n ORDER BY v", NUMS) == ["-12", "-5", "007".lstrip("0"), "9", "10", "100"]


def test_integer_min_max_and_printing():
    assert rows("SELECT MIN(v), MAX(v) FROM n", NUMS) == [["-12", "100"]]
    assert column("SELECT v FROM n WHERE v < 8 ORDER BY v DESC", NUMS) == ["7", "-5", "-12"]
