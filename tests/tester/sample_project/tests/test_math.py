import pytest

from sample.calc import add, mean


def test_add():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


def test_mean():
    assert mean([1, 2, 3]) == 2


@pytest.mark.parametrize("a,b,total", [(0, 0, 0), (1, 1, 2)])
def test_add_table(a, b, total):
    assert add(a, b) == total


@pytest.mark.skip(reason="not written yet")
def test_later():
    assert False
