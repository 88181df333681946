import time


def test_takes_two_seconds():
    time.sleep(2)
    assert True
