from mdlite_testkit import html


def test_a_tab_is_four_columns_of_indentation():
    assert html("\tprint(1)\n") == "<pre><code>print(1)\n</code></pre>\n"
    assert html(" \tx = 2\n") == "<pre><code>x = 2\n</code></pre>\n"


def test_tabs_inside_a_line_stay_tabs():
    assert html("\ta\tb\n") == "<pre><code>a\tb\n</code></pre>\n"
    assert html("one\ttwo\n") == "<p>one\ttwo</p>\n"


def test_columns_a_marker_does_not_use_become_spaces():
    assert html(">\t\tdeep\n") == "<blockquote>\n<pre><code>  deep\n</code></pre>\n</blockquote>\n"
