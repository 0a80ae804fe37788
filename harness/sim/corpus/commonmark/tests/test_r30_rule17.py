from mdlite_testkit import inline


def test_code_spans_bind_tighter():
    assert inline("*a `*`*") == "<em>a <code>*</code></em>"
    assert inline("_a `_`") == "_a <code>_</code>"


def test_autolinks_bind_tighter():
    assert inline("**x<http://e.org/?a=**>") == '**x<a href="http://e.org/?a=**">http://e.org/?a=**</a>'


def test_underscore_inside_an_autolink_is_not_a_delimiter():
    assert inline("_a<http://e.org/_>") == '_a<a href="http://e.org/_">http://e.org/_</a>'
