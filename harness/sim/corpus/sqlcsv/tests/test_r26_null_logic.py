from sqlcsv_testkit import column


def test_is_null_and_is_not_null():
    assert column("SELECT name FROM people WHERE city IS NULL") == ["Cy"]
    assert column("SELECT name FROM people WHERE city IS NOT NULL") == ["Ann", "bob", "Dee"]


def test_comparisons_with_null_are_unknown():
    assert column("SELECT name FROM people WHERE city = NULL") == []
    assert column("SELECT name FROM people WHERE NOT city = 'Boston'") == ["bob", "Dee"]
    assert column("SELECT name FROM people WHERE city != 'x' OR age > 1000") == ["Ann", "bob", "Dee"]
