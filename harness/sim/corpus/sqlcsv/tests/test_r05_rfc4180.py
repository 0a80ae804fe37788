from sqlcsv_testkit import rows

QUOTED = {"q.csv": 'k,v\r\n1,"a,b"\r\n2,"say ""hi"""\r\n3,"two\nlines"\r\n4,plain\r\n5,"calm"'}


def test_quoted_fields_keep_commas_quotes_and_line_breaks():
    assert rows("SELECT k, v FROM q", QUOTED) == [["1", "a,b"], ["2", 'say "hi"'], ["3", "two\nlines"], ["4", "plain"], ["5", "calm"]]


def test_crlf_is_never_part_of_a_value():
    assert rows("SELECT v FROM q WHERE v = 'plain'", QUOTED) == [["plain"]]
    assert rows("SELECT k FROM q WHERE k = 4", QUOTED) == [["4"]]


def test_empty_lines_are_not_records():
    assert rows("SELECT v FROM b", {"b.csv": "\nv\n1\n\n\n2\r\n\r\n"}) == [["1"], ["2"]]
