from mdlite_testkit import inline


def test_double_star_opens_strong():
    assert inline("**bold**") == "<strong>bold</strong>"
    assert inline("a**b**c") == "a<strong>b</strong>c"


def test_double_star_before_whitespace_does_not_open():
    assert inline("** bold**") == "** bold**"


def test_double_star_between_a_letter_and_punctuation_does_not_open():
    assert inline('a**"b"**') == "a**&quot;b&quot;**"
