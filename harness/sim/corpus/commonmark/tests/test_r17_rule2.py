from mdlite_testkit import inline


def test_left_flanking_underscore_opens():
    assert inline("_word_") == "<em>word</em>"
    assert inline("(_word_)") == "(<em>word</em>)"


def test_no_emphasis_inside_words():
    assert inline("snake_case_name") == "snake_case_name"
    assert inline("_ word_") == "_ word_"


def test_no_emphasis_after_non_ascii_letters():
    assert inline("caf\u00e9_bar_") == "caf\u00e9_bar_"
