from mdlite_testkit import inline


def test_matching_backtick_runs():
    assert inline("`x`") == "<code>x</code>"
    assert inline("``a`b``") == "<code>a`b</code>"


def test_one_space_comes_off_each_side():
    assert inline("`` `tick` ``") == "<code>`tick`</code>"
    assert inline("`  two  `") == "<code> two </code>"
    assert inline("`   `") == "<code>   </code>"


def test_line_endings_become_spaces():
    assert inline("`a\nb`") == "<code>a b</code>"


def test_unmatched_runs_are_literal():
    assert inline("```x``") == "```x``"
    assert inline("`<&>`") == "<code>&lt;&amp;&gt;</code>"
