from sqlcsv_testkit import run

QUOTED = {"q.csv": 'k,v\r\n1,"a,b"\r\n2,"say ""hi"""\r\n3,"two\nlines"\r\n4,plain'}


def test_quoted_fields_keep_commas_quotes_and_line_breaks():
    outcome = run("SELECT k, v FROM q", QUOTED, fmt="json")
    assert outcome.out == '[{"k": 1, "v": "a,b"}, {"k": 2, "v": "say \\"hi\\""}, {"k": 3, "v": "two\\nlines"}, {"k": 4, "v": "plain"}]\n'


def test_crlf_is_never_part_of_a_value():
    outcome = run("SELECT v FROM q WHERE v = 'plain'", QUOTED, fmt="json")
    assert outcome.out == '[{"v": "plain"}]\n'
    assert run("SELECT k FROM q WHERE k = 4", QUOTED, fmt="json").out == '[{"k": 4}]\n'
