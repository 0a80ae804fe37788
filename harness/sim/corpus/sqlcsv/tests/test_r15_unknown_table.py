from sqlcsv_testkit import refused


def test_unknown_table_exits_3():
    assert refused("SELECT name FROM nobody") == 3
    assert refused("SELECT name FROM People") == 3
    assert refused("SELECT name FROM people JOIN ghosts ON name = ghost") == 3
