from sqlcsv_testkit import column


def test_not_negates_and_repeats():
    assert column("SELECT name FROM people WHERE NOT age = 31") == ["bob", "Cy"]
    assert column("SELECT name FROM people WHERE NOT NOT age = 31") == ["Ann", "Dee"]


def test_not_binds_tighter_than_and_or():
    assert column("SELECT name FROM people WHERE NOT age = 31 AND age > 50") == ["Cy"]
    assert column("SELECT name FROM people WHERE NOT (age = 31 OR age = 9)") == ["Cy"]
