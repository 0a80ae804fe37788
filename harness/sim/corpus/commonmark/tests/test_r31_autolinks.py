from mdlite_testkit import inline


def test_absolute_uris():
    assert inline("<https://e.org/a?b=c&d>") == '<a href="https://e.org/a?b=c&amp;d">https://e.org/a?b=c&amp;d</a>'
    assert inline("<x-y:z>") == '<a href="x-y:z">x-y:z</a>'


def test_unsafe_characters_are_percent_encoded_in_the_address():
    assert inline("<http://e.org/\\\u00e9>") == '<a href="http://e.org/%5C%C3%A9">http://e.org/\\\u00e9</a>'


def test_email_addresses():
    assert inline("<me@e.org>") == '<a href="mailto:me@e.org">me@e.org</a>'


def test_not_autolinks():
    assert inline("<http://e.org /a>") == "&lt;http://e.org /a&gt;"
    assert inline("<a:b>") == "&lt;a:b&gt;"
    assert inline("http://e.org") == "http://e.org"
