from sqlcsv_testkit import column

TEMPS = {"t.csv": "city,temp,price\nA,-5,2.5\nB,-2,1.25\nC,4,3\n"}


def test_negative_and_decimal_literals():
    assert column("SELECT city FROM t WHERE temp < -3", TEMPS) == ["A"]
    assert column("SELECT city FROM t WHERE price >= 2.5", TEMPS) == ["A", "C"]
    assert column("SELECT city FROM t WHERE temp > -2.5", TEMPS) == ["B", "C"]
