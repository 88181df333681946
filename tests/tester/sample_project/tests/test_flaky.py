import os


def test_fails_once_per_workspace():
    # The first run in a workspace leaves a mark and fails; a rerun passes.
    mark = os.path.join(os.getcwd(), ".flaky-mark")
    if not os.path.exists(mark):
        open(mark, "w").close()
        assert False, "first run fails"
