from sqlcsv_testkit import refused


def test_bare_column_with_aggregate_needs_group_by():
    assert refused("SELECT name, COUNT(*) FROM people") == 2
    assert refused("SELECT COUNT(*) FROM people ORDER BY name") == 2


def test_non_group_column_exits_2():
    assert refused("SELECT name, COUNT(*) FROM people GROUP BY city") == 2
