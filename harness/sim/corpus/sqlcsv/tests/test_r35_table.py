from sqlcsv_testkit import run, run_args


def test_table_format_pads_and_aligns():
    expected = "name | age | city  \n-----+-----+-------\nAnn  |  31 | Boston\nbob  |   9 | Denver\nCy   | 100 |       \n"
    assert run("SELECT name, age, city FROM people LIMIT 3", fmt="table").out == expected


def test_table_is_the_default():
    outcome = run_args(["--data", "{data}", "SELECT score FROM people WHERE age > 30"])
    assert outcome.out == "score\n-----\n  2.5\n10.25\n     \n"


def test_header_is_left_aligned_over_numbers():
    assert run("SELECT age AS n FROM people WHERE age > 30", fmt="table").out == "n  \n---\n 31\n100\n 31\n"
