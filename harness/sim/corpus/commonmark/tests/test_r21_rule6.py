from mdlite_testkit import inline


def test_double_underscore_opens_strong():
    assert inline("__bold__") == "<strong>bold</strong>"


def test_not_inside_words_or_before_whitespace():
    assert inline("a__b__c") == "a__b__c"
    assert inline("__ bold__") == "__ bold__"


def test_double_underscore_after_punctuation_opens():
    assert inline("x-__(y)__") == "x-<strong>(y)</strong>"
