from mdlite_testkit import inline


def test_unmatched_underscores_are_literal():
    assert inline("a ___") == "a ___"
    assert inline("__a_") == "_<em>a</em>"
    assert inline("_a__") == "<em>a</em>_"


def test_escaped_underscore_inside_emphasis():
    assert inline("_\\__") == "<em>_</em>"
