from sqlcsv_testkit import refused


def test_outside_the_subset_exits_2():
    assert refused("SELECT age + 1 FROM people") == 2
    assert refused("SELECT name FROM people UNION SELECT name FROM people") == 2
    assert refused("SELECT COUNT(DISTINCT age) FROM people") == 2


def test_malformed_beats_missing_names():
    assert refused("SELECT nope, FROM missing") == 2
    assert refused("SELECT @ FROM missing") == 2
