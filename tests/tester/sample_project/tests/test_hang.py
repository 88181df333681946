import time


def test_hangs():
    time.sleep(3600)
