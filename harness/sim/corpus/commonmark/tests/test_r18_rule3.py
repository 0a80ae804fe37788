from mdlite_testkit import inline


def test_right_flanking_star_closes():
    assert inline("*end*.") == "<em>end</em>."
    assert inline("*a*b") == "<em>a</em>b"


def test_star_after_whitespace_does_not_close():
    assert inline("*word *") == "*word *"


def test_star_after_a_line_ending_does_not_close():
    assert inline("*a\n*") == "*a\n*"
