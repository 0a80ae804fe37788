from mdlite_testkit import inline


def test_double_underscore_closes_strong():
    assert inline("__bold__!") == "<strong>bold</strong>!"


def test_not_inside_words_or_after_whitespace():
    assert inline("__bold__er") == "__bold__er"
    assert inline("__bold __") == "__bold __"
