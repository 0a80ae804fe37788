from mdlite_testkit import html


def test_one_to_six_hashes_give_the_level():
    for level in range(1, 7):
        assert html("#" * level + " Title\n") == "<h%d>Title</h%d>\n" % (level, level)


def test_not_a_heading():
    assert html("####### seven\n") == "<p>####### seven</p>\n"
    assert html("#tag\n") == "<p>#tag</p>\n"
    assert html("\\# escaped\n") == "<p># escaped</p>\n"
    assert html("    # code\n") == "<pre><code># code\n</code></pre>\n"


def test_content_is_inline_and_trimmed():
    assert html("##    spaced *out*   \n") == "<h2>spaced <em>out</em></h2>\n"
    assert html("   ### indented\n") == "<h3>indented</h3>\n"


def test_a_heading_interrupts_a_paragraph():
    assert html("text\n# Head\nafter\n") == "<p>text</p>\n<h1>Head</h1>\n<p>after</p>\n"
