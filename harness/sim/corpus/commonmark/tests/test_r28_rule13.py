from mdlite_testkit import inline


def test_fewest_nestings():
    assert inline("**a**") == "<strong>a</strong>"
    assert inline("****a****") == "<strong><strong>a</strong></strong>"
    assert inline("______a______") == "<strong><strong><strong>a</strong></strong></strong>"


def test_three_delimiters_make_strong_inside_emphasis():
    assert inline("***a***") == "<em><strong>a</strong></em>"


def test_emphasis_of_both_characters_nests():
    assert inline("*_a_*") == "<em><em>a</em></em>"
