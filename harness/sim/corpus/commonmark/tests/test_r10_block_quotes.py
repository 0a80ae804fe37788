from mdlite_testkit import html


def test_markers_with_and_without_space():
    assert html("> a\n>b\n") == "<blockquote>\n<p>a\nb</p>\n</blockquote>\n"
    assert html("   > indented\n") == "<blockquote>\n<p>indented</p>\n</blockquote>\n"


def test_block_quotes_nest_and_hold_blocks():
    assert html("> # H\n> > inner\n") == "<blockquote>\n<h1>H</h1>\n<blockquote>\n<p>inner</p>\n</blockquote>\n</blockquote>\n"


def test_blank_line_ends_a_block_quote():
    assert html("> a\n\n> b\n") == "<blockquote>\n<p>a</p>\n</blockquote>\n<blockquote>\n<p>b</p>\n</blockquote>\n"
    assert html(">\n") == "<blockquote>\n</blockquote>\n"


def test_four_spaces_make_code_not_a_quote():
    assert html("    > no\n") == "<pre><code>&gt; no\n</code></pre>\n"
