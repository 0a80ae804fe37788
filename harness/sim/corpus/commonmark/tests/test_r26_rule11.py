from mdlite_testkit import inline


def test_unmatched_stars_are_literal():
    assert inline("a ***") == "a ***"
    assert inline("**a*") == "*<em>a</em>"
    assert inline("*a**") == "<em>a</em>*"


def test_escaped_star_inside_emphasis():
    assert inline("*\\**") == "<em>*</em>"
