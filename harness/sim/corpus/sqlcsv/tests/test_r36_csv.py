from sqlcsv_testkit import run

ODD = {"o.csv": 'v\n"a,b"\n"say ""x"""\n"l1\nl2"\nplain\n'}


def test_csv_quotes_exactly_what_needs_it():
    assert run("SELECT v FROM o", ODD).out == 'v\n"a,b"\n"say ""x"""\n"l1\nl2"\nplain\n'
