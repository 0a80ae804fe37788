from sqlcsv_testkit import refused, rows


def test_having_keeps_groups_by_aggregates():
    assert rows("SELECT customer FROM orders GROUP BY customer HAVING COUNT(*) > 1") == [["Ann"]]
    assert rows("SELECT customer FROM orders GROUP BY customer HAVING SUM(amount) < 6 AND customer IS NOT NULL") == [["bob"], ["Zed"]]


def test_having_without_group_by_exits_2():
    assert refused("SELECT COUNT(*) FROM orders HAVING COUNT(*) > 1") == 2
