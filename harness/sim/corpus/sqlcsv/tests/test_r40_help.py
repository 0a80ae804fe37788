from sqlcsv_testkit import run_args

USAGE = "usage: python3 -m sqlcsv --data DIR [--format table|csv|json] SQL\n"


def test_help_anywhere_wins():
    for args in (["--help"], ["-h"], ["--data", "/nonexistent", "-h", "SELECT"], ["--bogus", "--help", "x", "y"]):
        outcome = run_args(args)
        assert (outcome.status, outcome.out) == (0, USAGE)
