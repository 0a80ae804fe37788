from mdlite_testkit import html


def test_blank_lines_separate_paragraphs():
    assert html("one\n\n\n\ntwo\n") == "<p>one</p>\n<p>two</p>\n"


def test_leading_spaces_are_stripped():
    assert html("   a\n      b\n") == "<p>a\nb</p>\n"


def test_blank_lines_at_the_edges_are_ignored():
    assert html("\n  \n\nonly\n\n   \n") == "<p>only</p>\n"
    assert html("") == ""
