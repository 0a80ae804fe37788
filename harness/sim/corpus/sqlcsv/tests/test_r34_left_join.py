from sqlcsv_testkit import rows


def test_left_join_keeps_unmatched_rows_with_nulls():
    assert rows("SELECT id, tier FROM orders LEFT JOIN customers ON orders.customer = customers.customer") == [
        ["1", "gold"], ["2", "silver"], ["3", "gold"], ["4", ""], ["5", ""]]
    assert rows("SELECT tier, id FROM customers LEFT OUTER JOIN orders ON customers.customer = orders.customer WHERE id IS NULL") == [["bronze", ""]]
