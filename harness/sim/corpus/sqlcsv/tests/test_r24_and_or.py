from sqlcsv_testkit import column


def test_and_binds_tighter_than_or():
    assert column("SELECT name FROM people WHERE name = 'bob' OR age = 31 AND city = 'Austin'") == ["bob", "Dee"]


def test_parentheses_override():
    assert column("SELECT name FROM people WHERE (name = 'bob' OR age = 31) AND city = 'Austin'") == ["Dee"]
