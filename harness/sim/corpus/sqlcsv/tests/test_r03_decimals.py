from sqlcsv_testkit import column, rows

MIXED = {"m.csv": "d,t\n3,007x\n2.50,1.0\n-0.75, 2\n10,abc\n"}


def test_decimal_column_prints_floats():
    assert column("SELECT d FROM m", MIXED) == ["3.0", "2.5", "-0.75", "10.0"]


def test_decimal_column_sorts_numerically():
    assert column("SELECT d FROM m ORDER BY d", MIXED) == ["-0.75", "2.5", "3.0", "10.0"]


def test_other_columns_are_text_kept_exactly():
    assert column("SELECT t FROM m", MIXED) == ["007x", "1.0", " 2", "abc"]
    assert rows("SELECT MAX(t) FROM m", MIXED) == [["abc"]]
