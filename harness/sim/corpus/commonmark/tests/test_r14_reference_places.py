from mdlite_testkit import html, inline


def test_references_are_not_markup():
    assert inline("&#42;word&#42;") == "*word*"
    assert html("&#35; title\n") == "<p># title</p>\n"


def test_not_in_code():
    assert inline("`&copy;`") == "<code>&amp;copy;</code>"
    assert html("~~~\n&copy;\n~~~\n") == "<pre><code>&amp;copy;\n</code></pre>\n"


def test_reference_for_a_line_feed_is_not_a_line_ending():
    assert inline("a&#10;b") == "a\nb"
