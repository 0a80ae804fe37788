from sqlcsv_testkit import run


def test_star_in_header_order():
    assert run("SELECT * FROM customers").lines == ["customer,tier", "Ann,gold", "bob,silver", "Eve,bronze"]


def test_star_with_join_puts_from_table_first():
    outcome = run("SELECT * FROM customers JOIN orders ON customers.customer = orders.customer WHERE id = 2")
    assert outcome.lines == ["customer,tier,id,customer,amount", "bob,silver,2,bob,5"]
