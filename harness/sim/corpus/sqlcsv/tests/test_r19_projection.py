from sqlcsv_testkit import run


def test_select_list_order_and_repeats():
    assert run("SELECT city, name, city FROM people LIMIT 1").lines == ["city,name,city", "Boston,Ann,Boston"]
