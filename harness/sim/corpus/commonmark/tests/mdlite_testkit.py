"""Runs mdlite as `python3 -m mdlite` does, in this process: the package's `__main__` module run
by runpy (what `-m` uses), Markdown on standard input, HTML on standard output."""
import io
import runpy
import sys


class _Stream:
    """A text stream with the `.buffer` of bytes that mdlite reads and writes."""

    def __init__(self, data=b""):
        self.buffer = io.BytesIO(data)


def html(markdown):
    """The HTML mdlite prints for `markdown`, after checking it exited 0 and wrote no errors."""
    saved = sys.stdin, sys.stdout, sys.stderr
    stdin, stdout, stderr = _Stream(markdown.encode("utf-8")), _Stream(), io.StringIO()
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        runpy.run_module("mdlite", run_name="__main__", alter_sys=False)
        status = 0
    except SystemExit as done:
        status = done.code or 0
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    assert status == 0, stderr.getvalue()
    assert stderr.getvalue() == "", stderr.getvalue()
    return stdout.buffer.getvalue().decode("utf-8")


def inline(markdown):
    """The HTML of a one-paragraph document, without the <p> and </p> around it."""
    out = html(markdown)
    assert out.startswith("<p>") and out.endswith("</p>\n"), out
    return out[len("<p>"):-len("</p>\n")]
