from mdlite_testkit import inline


def test_double_star_closes_strong():
    assert inline("**bold**!") == "<strong>bold</strong>!"
    assert inline("**a**b") == "<strong>a</strong>b"


def test_after_whitespace_it_does_not_close():
    assert inline("**bold **") == "**bold **"


def test_double_star_between_punctuation_and_a_letter_does_not_close():
    assert inline("**a(**b)") == "**a(**b)"
