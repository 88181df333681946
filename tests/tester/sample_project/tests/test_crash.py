import os


def test_crashes_the_interpreter():
    os.abort()
