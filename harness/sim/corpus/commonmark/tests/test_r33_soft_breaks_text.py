from mdlite_testkit import inline


def test_line_ending_is_kept_and_spaces_around_it_go():
    assert inline("a \n  b") == "a\nb"
    assert inline("one\ntwo") == "one\ntwo"


def test_text_is_escaped_and_otherwise_kept():
    assert inline('say "hi" <now> & $x') == "say &quot;hi&quot; &lt;now&gt; &amp; $x"
    assert inline("\u00e9l\u00e8ve  multiple   spaces") == "\u00e9l\u00e8ve  multiple   spaces"
