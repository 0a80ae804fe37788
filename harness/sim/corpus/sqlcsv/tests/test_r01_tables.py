from sqlcsv_testkit import DATA, column, refused, run


def test_header_names_columns_and_is_not_a_row():
    outcome = run("SELECT * FROM people")
    assert outcome.lines[0] == "name,age,city,score"
    assert [line.split(",")[0] for line in outcome.lines[1:]] == ["Ann", "bob", "Cy", "Dee"]


def test_header_only_file_is_an_empty_table():
    outcome = run("SELECT a, b FROM blank", {"blank.csv": "a,b\n"})
    assert (outcome.status, outcome.lines) == (0, ["a,b"])


def test_stem_names_the_table_exactly():
    files = dict(DATA, **{"Staff.csv": "who\nkim\n", "notes.txt": "who\nx\n"})
    assert column("SELECT who FROM Staff", files) == ["kim"]
    assert refused("SELECT who FROM notes", files) != 0


def test_empty_file_is_a_table_without_columns():
    files = dict(DATA, **{"nothing.csv": ""})
    assert refused("SELECT x FROM nothing", files) == 3
    assert run("SELECT * FROM nothing", files).out == "\n"
