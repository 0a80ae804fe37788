from mdlite_testkit import inline


def test_left_flanking_star_opens():
    assert inline("*word*") == "<em>word</em>"
    assert inline("in*side*word") == "in<em>side</em>word"


def test_star_followed_by_whitespace_does_not_open():
    assert inline("* word*") == "* word*"
    assert inline("a * b*") == "a * b*"


def test_symbols_count_as_punctuation():
    assert inline("*\u20ac*word") == "*\u20ac*word"
