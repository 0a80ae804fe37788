from sqlcsv_testkit import column, rows

GAPS = {"g.csv": "n,d,t\n5,1.5,x\n,,\n-3,\"\",y\n"}


def test_empty_fields_are_null_in_every_type():
    assert rows("SELECT COUNT(*), COUNT(n), COUNT(d), COUNT(t) FROM g", GAPS) == [["3", "2", "1", "2"]]
    assert column("SELECT n FROM g WHERE t IS NULL", GAPS) == [""]


def test_null_is_not_empty_text_or_zero():
    assert column("SELECT n FROM g WHERE t = ''", GAPS) == []
    assert column("SELECT t FROM g WHERE n = 0", GAPS) == []


def test_null_keeps_the_column_numeric():
    assert column("SELECT n FROM g WHERE n < 6", GAPS) == ["5", "-3"]
    assert column("SELECT d FROM g WHERE d IS NOT NULL", GAPS) == ["1.5"]
