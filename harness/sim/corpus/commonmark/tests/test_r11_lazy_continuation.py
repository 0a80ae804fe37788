from mdlite_testkit import html


def test_paragraph_text_continues_without_a_marker():
    assert html("> one\ntwo\n") == "<blockquote>\n<p>one\ntwo</p>\n</blockquote>\n"
    assert html(">> deep\nlazy\n") == "<blockquote>\n<blockquote>\n<p>deep\nlazy</p>\n</blockquote>\n</blockquote>\n"


def test_only_paragraphs_continue_lazily():
    assert html(">     code\nnot\n") == "<blockquote>\n<pre><code>code\n</code></pre>\n</blockquote>\n<p>not</p>\n"
    assert html("> text\n***\n") == "<blockquote>\n<p>text</p>\n</blockquote>\n<hr />\n"


def test_several_lazy_lines_stay_in_the_quote():
    assert html("> a\nb\nc\n") == "<blockquote>\n<p>a\nb\nc</p>\n</blockquote>\n"
