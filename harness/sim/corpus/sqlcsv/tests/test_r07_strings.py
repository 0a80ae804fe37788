from sqlcsv_testkit import column

WORDS = {"w.csv": "id,text\n1,it's\n2,\"a, \"\"b\"\"\"\n3,SELECT FROM\n"}


def test_doubled_quote_is_one_quote():
    assert column("SELECT id FROM w WHERE text = 'it''s'", WORDS) == ["1"]


def test_other_characters_are_literal():
    assert column("SELECT id FROM w WHERE text = 'a, \"b\"'", WORDS) == ["2"]
    assert column("SELECT id FROM w WHERE text = 'SELECT FROM'", WORDS) == ["3"]
