from sqlcsv_testkit import column


def test_equals_by_value_and_case_sensitive():
    assert column("SELECT name FROM people WHERE score = 3") == ["bob"]
    assert column("SELECT name FROM people WHERE name = 'ann'") == []


def test_not_equal_spellings_and_number_never_equals_text():
    assert column("SELECT name FROM people WHERE age != 31") == ["bob", "Cy"]
    assert column("SELECT name FROM people WHERE age <> 31") == ["bob", "Cy"]
    assert column("SELECT name FROM people WHERE age = '31'") == []
