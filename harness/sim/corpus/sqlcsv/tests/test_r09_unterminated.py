from sqlcsv_testkit import refused


def test_unterminated_string_exits_2():
    assert refused("SELECT name FROM people WHERE name = 'Ann") == 2


def test_unterminated_string_beats_missing_names():
    assert refused("SELECT nope FROM missing WHERE x = 'open") == 2
