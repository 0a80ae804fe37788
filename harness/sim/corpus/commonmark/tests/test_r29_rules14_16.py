from mdlite_testkit import inline


def test_first_opened_first_closed_when_overlapping():
    assert inline("*a _b* c_") == "<em>a _b</em> c_"
    assert inline("**a __b** c__") == "<strong>a __b</strong> c__"


def test_closer_takes_the_nearest_opener():
    assert inline("*a *b c*") == "*a <em>b c</em>"
    assert inline("**a **b c**") == "**a <strong>b c</strong>"
