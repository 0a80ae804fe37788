from mdlite_testkit import inline


def test_strong_holds_emphasis():
    assert inline("**a *b* c**") == "<strong>a <em>b</em> c</strong>"
    assert inline("**a*b*c**") == "<strong>a<em>b</em>c</strong>"


def test_strong_nests_in_strong():
    assert inline("**a **b** c**") == "<strong>a <strong>b</strong> c</strong>"


def test_closer_left_over_after_an_inner_strong_closes_the_outer():
    assert inline("**a **b****") == "<strong>a <strong>b</strong></strong>"
