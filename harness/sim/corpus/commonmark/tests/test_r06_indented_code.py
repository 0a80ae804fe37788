from mdlite_testkit import html


def test_four_columns_come_off_and_the_rest_stays():
    assert html("    if x:\n        y()\n") == "<pre><code>if x:\n    y()\n</code></pre>\n"


def test_content_is_escaped_and_not_parsed():
    assert html("    <b> & *c*\n") == "<pre><code>&lt;b&gt; &amp; *c*\n</code></pre>\n"


def test_blank_lines_inside_stay_and_at_the_ends_go():
    assert html("\n    a\n\n\n    b\n\n") == "<pre><code>a\n\n\nb\n</code></pre>\n"


def test_cannot_interrupt_a_paragraph():
    assert html("para\n    more\n") == "<p>para\nmore</p>\n"
