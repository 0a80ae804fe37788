from mdlite_testkit import html


def test_backtick_and_tilde_fences():
    assert html("```\n<x>\n```\n") == "<pre><code>&lt;x&gt;\n</code></pre>\n"
    assert html("~~~~\n*a*\n~~~~\n") == "<pre><code>*a*\n</code></pre>\n"


def test_closing_fence_must_match_and_be_long_enough():
    assert html("````\n```\nstill\n````\n") == "<pre><code>```\nstill\n</code></pre>\n"
    assert html("~~~\n```\n~~~\n") == "<pre><code>```\n</code></pre>\n"


def test_unclosed_fence_runs_to_the_end():
    assert html("```\nopen\n\n") == "<pre><code>open\n\n</code></pre>\n"


def test_opening_indentation_is_removed_from_content():
    assert html("  ```\n    deep\n  shallow\nnone\n  ```\n") == "<pre><code>  deep\nshallow\nnone\n</code></pre>\n"


def test_a_fence_interrupts_a_paragraph():
    assert html("text\n```\ncode\n```\n") == "<p>text</p>\n<pre><code>code\n</code></pre>\n"
