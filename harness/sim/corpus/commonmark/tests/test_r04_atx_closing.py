from mdlite_testkit import html


def test_closing_sequence_is_dropped():
    assert html("## Title ##\n") == "<h2>Title</h2>\n"
    assert html("# Title #########   \n") == "<h1>Title</h1>\n"
    assert html("### Title #\n") == "<h3>Title</h3>\n"


def test_closing_sequence_needs_a_space_before_it():
    assert html("# C#\n") == "<h1>C#</h1>\n"
    assert html("# a ## b\n") == "<h1>a ## b</h1>\n"
    assert html("# keep \\#\n") == "<h1>keep #</h1>\n"


def test_empty_headings():
    assert html("#\n") == "<h1></h1>\n"
    assert html("## ##\n") == "<h2></h2>\n"
