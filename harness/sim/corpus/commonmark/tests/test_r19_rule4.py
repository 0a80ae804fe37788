from mdlite_testkit import inline


def test_right_flanking_underscore_closes():
    assert inline("_end_.") == "<em>end</em>."


def test_underscore_does_not_close_inside_a_word():
    assert inline("_word_s") == "_word_s"
    assert inline("_word _") == "_word _"
