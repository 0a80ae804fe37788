from mdlite_testkit import inline


def test_left_flanking_underscore_opens():
    assert inline("_word_") == "<em>word</em>"
    assert inline("(_word_)") == "(<em>word</em>)"


def test_no_emphasis_inside_words():
    assert inline("snake_case_name") == "snake_case_name"
    assert inline("_ word_") == "_ word_"
