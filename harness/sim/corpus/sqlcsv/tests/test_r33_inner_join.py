from sqlcsv_testkit import run


def test_inner_join_pairs_matching_rows():
    outcome = run("SELECT orders.id, tier FROM orders JOIN customers ON orders.customer = customers.customer")
    assert outcome.lines == ["id,tier", "1,gold", "2,silver", "3,gold"]


def test_inner_keyword_and_bare_output_names():
    outcome = run("SELECT customers.customer, amount FROM customers INNER JOIN orders ON customers.customer = orders.customer")
    assert outcome.lines == ["customer,amount", "Ann,20", "Ann,7", "bob,5"]
