from sample.calc import add, mean


def test_mean_of_one():
    assert mean([4]) == 4


def test_add_strings():
    assert add("a", "b") == "ab"


def test_wrong_on_purpose():
    assert add(2, 2) == 5, "two and two make four"
