from sqlcsv_testkit import run


def test_json_layout_and_types():
    assert run("SELECT name, age, score FROM people WHERE age > 30 LIMIT 2", fmt="json").out == '[{"name": "Ann", "age": 31, "score": 2.5}, {"name": "Cy", "age": 100, "score": 10.25}]\n'


def test_json_escapes_non_ascii_and_keeps_repeated_names():
    files = {"u.csv": "w,v\ncaf\u00e9,x\n"}
    assert run("SELECT w, v AS w FROM u", files, fmt="json").out == '[{"w": "caf\\u00e9", "w": "x"}]\n'
