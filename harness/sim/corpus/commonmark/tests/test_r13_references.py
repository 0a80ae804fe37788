from mdlite_testkit import inline


def test_named_references():
    assert inline("&copy; &AElig; &frac34;") == "\u00a9 \u00c6 \u00be"
    assert inline("&nbsp;") == "\u00a0"


def test_numeric_references():
    assert inline("&#65;&#x42;&#X43;") == "ABC"
    assert inline("&#0;") == "\ufffd"


def test_what_is_not_a_reference_stays_text():
    assert inline("&nosuch; & &#; &#x; &copy") == "&amp;nosuch; &amp; &amp;#; &amp;#x; &amp;copy"
    assert inline("&#12345678;") == "&amp;#12345678;"


def test_references_that_decode_to_special_characters_are_escaped():
    assert inline("&lt;&amp;&quot;") == "&lt;&amp;&quot;"
