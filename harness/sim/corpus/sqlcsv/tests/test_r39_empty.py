from sqlcsv_testkit import run

NONE = "SELECT name, age FROM people WHERE age > 1000"


def test_empty_result_keeps_headers():
    assert run(NONE, fmt="table").out == "name | age\n-----+----\n"
    assert run(NONE).out == "name,age\n"
    assert (run(NONE, fmt="json").out, run(NONE, fmt="json").status) == ("[]\n", 0)
