from mdlite_testkit import html


def test_first_word_is_the_language():
    assert html("```python extra words\npass\n```\n") == '<pre><code class="language-python">pass\n</code></pre>\n'
    assert html("~~~   js\n1\n~~~\n") == '<pre><code class="language-js">1\n</code></pre>\n'


def test_escapes_and_references_resolve_in_the_info_string():
    assert html("```c\\+\\+\nx\n```\n") == '<pre><code class="language-c++">x\n</code></pre>\n'
    assert html("```&auml;\nx\n```\n") == '<pre><code class="language-\u00e4">x\n</code></pre>\n'


def test_backtick_in_a_backtick_info_string_is_not_a_fence():
    assert html("``` a`b\n") == "<p>``` a`b</p>\n"
    assert html("~~~ a`b\nc\n~~~\n") == '<pre><code class="language-a`b">c\n</code></pre>\n'


def test_closing_fence_cannot_carry_info():
    assert html("```\nx\n``` y\n") == "<pre><code>x\n``` y\n</code></pre>\n"
