from mdlite_testkit import html


def test_three_matching_characters_make_a_rule():
    for line in ("***", "---", "___", " - - -", "   *  *  *  *", "_\t_\t_"):
        assert html(line + "\n") == "<hr />\n", line


def test_other_lines_are_not_rules():
    assert html("+++\n") == "<p>+++</p>\n"
    assert html("**\n") == "<p>**</p>\n"
    assert html("*** x\n") == "<p>*** x</p>\n"
    assert html("    ***\n") == "<pre><code>***\n</code></pre>\n"


def test_a_rule_interrupts_a_paragraph():
    assert html("words\n***\nmore\n") == "<p>words</p>\n<hr />\n<p>more</p>\n"
