from mdlite_testkit import inline, html


def test_two_spaces_or_a_backslash_before_a_line_ending():
    assert inline("a  \nb") == "a<br />\nb"
    assert inline("a\\\nb") == "a<br />\nb"
    assert inline("a       \n   b") == "a<br />\nb"


def test_not_at_the_end_of_a_block_or_in_code():
    assert html("a\\\n") == "<p>a\\</p>\n"
    assert inline("`a  \nb`") == "<code>a   b</code>"
