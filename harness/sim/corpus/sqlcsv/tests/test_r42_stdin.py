from sqlcsv_testkit import run_args


def test_query_from_standard_input():
    outcome = run_args(["--format=csv", "-", "--data={data}"], stdin="SELECT name\nFROM people\nWHERE age = 9;\n")
    assert (outcome.status, outcome.out) == (0, "name\nbob\n")
