from mdlite_testkit import html


def test_blank_lines_separate_paragraphs():
    assert html("one\n\n\n\ntwo\n") == "<p>one</p>\n<p>two</p>\n"


def test_leading_spaces_are_stripped():
    assert html("   a\n      b\n") == "<p>a\nb</p>\n"


def test_blank_lines_at_the_edges_are_ignored():
    assert html("\n  \n\nonly\n\n   \n") == "<p>only</p>\n"
    assert html("") == ""


def test_the_command_line_reads_stdin_and_writes_stdout():
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-m", "mdlite"], input="one\n\ntwo\n".encode(), capture_output=True, cwd=root, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"<p>one</p>\n<p>two</p>\n", b"")


def test_trailing_spaces_of_the_last_line_go():
    assert html("last   \n") == "<p>last</p>\n"
