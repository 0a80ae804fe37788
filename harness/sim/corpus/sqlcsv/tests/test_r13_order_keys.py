from sqlcsv_testkit import rows


def test_later_keys_break_ties_in_their_own_direction():
    assert rows("SELECT age, name FROM people ORDER BY age DESC, name ASC") == [["100", "Cy"], ["31", "Ann"], ["31", "Dee"], ["9", "bob"]]
    assert rows("SELECT age, name FROM people ORDER BY age, name DESC") == [["9", "bob"], ["31", "Dee"], ["31", "Ann"], ["100", "Cy"]]
