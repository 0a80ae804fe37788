from mdlite_testkit import inline, html


def test_punctuation_can_be_escaped():
    assert inline("\\*not\\* \\_em\\_ \\# \\` \\\\") == "*not* _em_ # ` \\"
    assert inline("\\<b\\> \\&amp;") == "&lt;b&gt; &amp;amp;"


def test_other_backslashes_are_literal():
    assert inline("\\a \\1 \\\u00e9") == "\\a \\1 \\\u00e9"


def test_no_escapes_in_code():
    assert inline("`\\*`") == "<code>\\*</code>"
    assert html("    \\#\n") == "<pre><code>\\#\n</code></pre>\n"
