from sqlcsv_testkit import rows


def test_listed_columns_one_row_per_row():
    assert rows("SELECT name, city FROM people") == [["Ann", "Boston"], ["bob", "Denver"], ["Cy", ""], ["Dee", "Austin"]]


def test_any_whitespace_and_a_trailing_semicolon():
    assert rows("SELECT\tname,\n  age\r\nFROM people ;") == [["Ann", "31"], ["bob", "9"], ["Cy", "100"], ["Dee", "31"]]
