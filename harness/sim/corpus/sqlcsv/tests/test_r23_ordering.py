from sqlcsv_testkit import column


def test_numeric_comparisons_inclusive_and_either_side():
    assert column("SELECT name FROM people WHERE age >= 31") == ["Ann", "Cy", "Dee"]
    assert column("SELECT name FROM people WHERE 31 >= age") == ["Ann", "bob", "Dee"]
    assert column("SELECT name FROM people WHERE age < 31") == ["bob"]


def test_text_by_code_point():
    assert column("SELECT name FROM people WHERE name < 'a'") == ["Ann", "Cy", "Dee"]
    assert column("SELECT name FROM people WHERE name <= 'Cy'") == ["Ann", "Cy"]
