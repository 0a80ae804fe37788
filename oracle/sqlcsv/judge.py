"""The sqlcsv task's judge: whether one case's run passed. Loaded by the shared grading runner
(oracle/runner/runner.py) inside the grading container, after its fork server has started and
before any program runs; it holds no expectations (they come with each case).

judge(case, run) returns why the case failed, as a template that names the kind of difference
only (never the expected output or the case's arguments: reports are published), or None when
it passed. `run` holds spawn_error, timed_out, exit, stdout and stderr (bytes). The runner
settles a run that never started, timed out, was killed or passed the output cap before asking
(run_failure), so a judge sees only runs that exited with a status and within the cap.
"""

import csv
import io
import json



def output_format(args):
    for i, a in enumerate(args):
        if a == "--format" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--format="):
            return a.split("=", 1)[1]
    return "table"


def first_different_line(got, want):
    a, b = got.split("\n"), want.split("\n")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i + 1
    return min(len(a), len(b)) + 1


def rendered(value):
    """A JSON value as its canonical text: 3 and 3.0 stay apart, as they print apart."""
    return json.dumps(value, ensure_ascii=False)


def parse_result(text, fmt):
    """(header, rows) of a csv or json result, values as rendered."""
    if fmt == "csv":
        records = list(csv.reader(io.StringIO(text, newline="")))
        if not records:
            raise ValueError("empty")
        return records[0], records[1:]
    pairs = json.loads(text, object_pairs_hook=lambda items: items)
    if not isinstance(pairs, list) or not all(isinstance(r, list) for r in pairs):
        raise ValueError("not an array of objects")
    header = [k for k, _ in pairs[0]] if pairs else None
    for r in pairs:
        if [k for k, _ in r] != header:
            raise ValueError("objects with different keys")
    return header, [[rendered(v) for _, v in r] for r in pairs]


def judge_result(out, fmt, want):
    try:
        header, rows = parse_result(out, fmt)
    except (ValueError, csv.Error):
        return f"stdout is not a valid {fmt} result"
    want_header = want.get("header")
    if want_header is not None and header is not None and header != want_header:
        return "header differs"
    if fmt == "json":
        want_rows = [[rendered(v) for v in r] for r in want["rows"]]
    else:
        want_rows = [["" if v is None else str(v) for v in r] for r in want["rows"]]
    if len(rows) != len(want_rows):
        return f"{len(rows)} rows, a different number was expected"
    if want.get("ordered", True):
        for i, (a, b) in enumerate(zip(rows, want_rows)):
            if a != b:
                return f"row {i + 1} differs"
        return None
    if sorted(map(json.dumps, rows)) != sorted(map(json.dumps, want_rows)):
        return "rows differ (compared in any order)"
    return None


def judge(case, run):
    """Why the case failed (a template, see above), or None when it passed."""
    exp = case["expect"]
    if run["exit"] != exp["exit"]:
        return f"exit status {run['exit']} is not the expected one"
    try:
        out = run["stdout"].decode("utf-8")
    except UnicodeDecodeError:
        return "stdout is not UTF-8"
    stderr_rule = exp.get("stderr") or ("nonempty" if exp["exit"] != 0 else "any")
    if stderr_rule == "nonempty" and not run["stderr"].strip():
        return "stderr is empty, a diagnostic was expected"
    if stderr_rule == "empty" and run["stderr"]:
        return "stderr is not empty"
    if exp["exit"] != 0 and out:
        return "stdout is not empty on an error exit"
    if "stdout" in exp and out != exp["stdout"]:
        return f"stdout differs at line {first_different_line(out, exp['stdout'])}"
    if "result" in exp:
        return judge_result(out, output_format(case["args"]), exp["result"])
    return None
