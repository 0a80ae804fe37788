from mdlite_testkit import html


def test_underlines_make_levels_one_and_two():
    assert html("Title\n=====\n") == "<h1>Title</h1>\n"
    assert html("Sub *title*\n-\n") == "<h2>Sub <em>title</em></h2>\n"


def test_content_spans_several_lines():
    assert html("first\nsecond\n===\n") == "<h1>first\nsecond</h1>\n"


def test_underline_forms_that_do_not_apply():
    assert html("Title\n= =\n") == "<p>Title\n= =</p>\n"
    assert html("Title\n\n===\n") == "<p>Title</p>\n<p>===</p>\n"
    assert html("Title\n    ---\n") == "<p>Title\n---</p>\n"
    assert html("> quoted\n---\n") == "<blockquote>\n<p>quoted</p>\n</blockquote>\n<hr />\n"
