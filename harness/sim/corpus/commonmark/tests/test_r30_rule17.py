from mdlite_testkit import inline


def test_code_spans_bind_tighter():
    assert inline("*a `*`*") == "<em>a <code>*</code></em>"
    assert inline("_a `_`") == "_a <code>_</code>"


def test_autolinks_bind_tighter():
    assert inline("**x<http://e.org/?a=**>") == '**x<a href="http://e.org/?a=**">http://e.org/?a=**</a>'
