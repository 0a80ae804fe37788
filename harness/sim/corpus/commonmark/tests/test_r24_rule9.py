from mdlite_testkit import inline


def test_emphasis_holds_strong():
    assert inline("*a **b** c*") == "<em>a <strong>b</strong> c</em>"
    assert inline("*a**b**c*") == "<em>a<strong>b</strong>c</em>"


def test_rule_of_three_for_runs_that_open_and_close():
    assert inline("*a**b*") == "<em>a**b</em>"
    assert inline("x***y******z") == "x<em><strong>y</strong></em>***z"
