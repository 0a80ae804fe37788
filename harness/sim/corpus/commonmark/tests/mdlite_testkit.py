"""Runs `python3 -m mdlite` as a user would: Markdown on standard input, HTML on standard output."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def html(markdown):
    """The HTML mdlite prints for `markdown`, after checking it exited 0 and wrote no errors."""
    done = subprocess.run(
        [sys.executable, "-m", "mdlite"], input=markdown.encode("utf-8"), capture_output=True, cwd=ROOT, timeout=30
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", errors="replace")
    assert done.stderr == b"", done.stderr.decode("utf-8", errors="replace")
    return done.stdout.decode("utf-8")


def inline(markdown):
    """The HTML of a one-paragraph document, without the <p> and </p> around it."""
    out = html(markdown)
    assert out.startswith("<p>") and out.endswith("</p>\n"), out
    return out[len("<p>"):-len("</p>\n")]
