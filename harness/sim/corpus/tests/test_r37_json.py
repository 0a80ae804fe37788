from sqlcsv_testkit import run


def test_json_layout_and_types():
    assert run("SELECT name, age, score FROM people LIMIT 2", fmt="json").out == '[{"name": "Ann", "age": 31, "score": 2.5}, {"name": "bob", "age": 9, "score": 3.0}]\n'


def test_json_escapes_non_ascii_and_keeps_repeated_names():
    files = {"u.csv": "w\ncaf\u00e9\n"}
    assert run("SELECT w, w FROM u", files, fmt="json").out == '[{"w": "caf\\u00e9", "w": "caf\\u00e9"}]\n'
