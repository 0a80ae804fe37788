from sqlcsv_testkit import column, refused


def test_keywords_in_any_case():
    assert column("sElEcT name fRoM people wHeRe age > 50 OrDeR bY name") == ["Cy"]


def test_names_are_case_sensitive():
    assert refused("SELECT Name FROM people") == 3
    assert refused("SELECT name FROM people WHERE AGE > 1") == 3
