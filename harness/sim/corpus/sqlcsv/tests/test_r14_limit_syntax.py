from sqlcsv_testkit import column, refused


def test_limit_and_offset():
    assert column("SELECT name FROM people LIMIT 2") == ["Ann", "bob"]
    assert column("SELECT name FROM people LIMIT 2 OFFSET 1") == ["bob", "Cy"]
    assert column("SELECT name FROM people LIMIT 0") == []


def test_bad_counts_exit_2():
    assert refused("SELECT name FROM people OFFSET 1") == 2
    assert refused("SELECT name FROM people LIMIT -1") == 2
    assert refused("SELECT name FROM people LIMIT 1.5") == 2
