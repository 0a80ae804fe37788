"""Whether one run of a commonmark case passed: a pure function, loaded by the shared runner (oracle/runner/runner.py).

    judge(case, run) -> None when the case passed, else the reason it failed

`case` is {"expect": {"html": str, "whitespace": "spec" | "exact"}} (Markdown went in on stdin; whitespace
defaults to "spec", see normalize.py); `run` is what the runner observed:
{"spawn_error": bool, "timed_out": bool, "exit": int | None, "stdout": bytes, "stderr": bytes}. A case passes
when the program exited 0 and its stdout, read as UTF-8, has the expected HTML's normal form (normalize.py);
stderr is ignored. Reasons name the kind of difference only, never the expected output: reports are published.
The runner settles a run that never started, timed out, was killed or passed the output cap before asking
(run_failure), so this judge sees only runs that exited with a status and within the cap.
"""

import re

from normalize import normalize

TOKEN = re.compile(r"<[^<>]*>|[^<]+|<")   # no `>` search past the next `<`: linear on unterminated tags


def tokens(normal_form):
    """A normal form as tags and runs of text, the units a difference is reported in."""
    return TOKEN.findall(normal_form)


def difference(got, want):
    """The kind of the first difference between two normal forms (they differ)."""
    a, b = tokens(got), tokens(want)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            x_tag, y_tag = x.startswith("<"), y.startswith("<")
            if x_tag and y_tag:
                return f"HTML differs at token {i + 1}: another tag was expected"
            if not x_tag and not y_tag:
                return f"HTML differs at token {i + 1}: other text was expected"
            kind = "a tag where text" if x_tag else "text where a tag"
            return f"HTML differs at token {i + 1}: {kind} was expected"
    if len(a) < len(b):
        return f"HTML ends after token {len(a)}, more was expected"
    return f"HTML goes on past token {len(b)}, where it was expected to end"


def judge(case, run):
    """Why the case failed (a reason naming the kind of difference), or None when it passed."""
    if run["exit"] != 0:
        return f"exit status {run['exit']} is not the expected one"
    try:
        out = run["stdout"].decode("utf-8")
    except UnicodeDecodeError:
        return "stdout is not UTF-8"
    whitespace = case["expect"].get("whitespace", "spec")
    got, want = normalize(out, whitespace), normalize(case["expect"]["html"], whitespace)
    if got == want:
        return None
    if not got.strip():
        return "stdout is empty once normalised, HTML was expected"
    return difference(got, want)
