"""Runs sqlcsv in-process over small data sets written to a temporary directory."""
import io
import json
import os
import tempfile

from sqlcsv.cli import main

PEOPLE = "name,age,city,score\nAnn,31,Boston,2.5\nbob,9,Denver,3\nCy,100,,10.25\nDee,31,Austin,\n"
ORDERS = "id,customer,amount\n1,Ann,20\n2,bob,5\n3,Ann,7\n4,Zed,1\n5,,3\n"
CUSTOMERS = "customer,tier\nAnn,gold\nbob,silver\nEve,bronze\n"
DATA = {"people.csv": PEOPLE, "orders.csv": ORDERS, "customers.csv": CUSTOMERS}


class Outcome:
    def __init__(self, status, out, err):
        self.status = status
        self.out = out
        self.err = err

    @property
    def lines(self):
        return self.out.splitlines()


def run_args(args, files=None, stdin=""):
    """Runs the command line with `{data}` in args replaced by a fresh data directory."""
    with tempfile.TemporaryDirectory() as directory:
        for name, content in (DATA if files is None else files).items():
            with open(os.path.join(directory, name), "wb") as handle:
                handle.write(content.encode("utf-8"))
        out = io.BytesIO()
        err = io.StringIO()
        argv = [a.replace("{data}", directory) for a in args]
        status = main(argv, io.BytesIO(stdin.encode("utf-8")), out, err)
        return Outcome(status, out.getvalue().decode("utf-8"), err.getvalue())


def run(sql, files=None, fmt="csv"):
    return run_args(["--data", "{data}", "--format", fmt, sql], files)


def text_of(value):
    """A result value as the tests compare it: NULL as "", numbers as sqlcsv prints them."""
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def rows(sql, files=None):
    """The rows of a result as lists of strings, read back as data from the JSON format."""
    outcome = run(sql, files, fmt="json")
    assert outcome.status == 0, outcome.err
    return [[text_of(v) for _, v in members] for members in json.loads(outcome.out, object_pairs_hook=list)]


def column(sql, files=None):
    return [row[0] for row in rows(sql, files)]


def refused(sql, files=None):
    """The exit status of a refused query, after checking nothing reached standard output."""
    outcome = run(sql, files)
    assert outcome.out == "", outcome.out
    assert outcome.err.strip() and "\n" not in outcome.err.strip()
    return outcome.status
