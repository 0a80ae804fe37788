import os
import tempfile

from sqlcsv_testkit import run_args

SQL = "SELECT name FROM people"


def status(args):
    outcome = run_args(args)
    assert outcome.out == ""
    return outcome.status


def test_data_directory_errors():
    assert status([SQL]) == 2
    assert status(["--data", "/nonexistent/dir", SQL]) == 2
    with tempfile.NamedTemporaryFile() as handle:
        assert status(["--data", handle.name, SQL]) == 2


def test_other_argument_errors():
    assert status(["--data", "{data}", "--verbose", SQL]) == 2
    assert status(["--data", "{data}", "--data={data}", SQL]) == 2
    assert status(["--data", "{data}", "--format", "TABLE", SQL]) == 2
    assert status(["--data", "{data}"]) == 2
    assert status(["--data", "{data}", SQL, SQL]) == 2
    assert status(["--data", "{data}", SQL, "--format"]) == 2
