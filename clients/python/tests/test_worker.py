"""Python workers serving kinds through real nodes: what a user checks."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import dice
from conftest import wait_members

HERE = Path(__file__).resolve().parent
LEASE = ["--worker-lease-ms", "1000"]


def until(check, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


def accepts(client, kind, payload="x", **options):
    """Submits once some live member advertises the kind; the id."""
    def attempt():
        try:
            return client.submit(kind, payload, **options)
        except dice.BadRequest as e:
            assert "unknown kind" in str(e), e
            return None
    return until(attempt, 15, f"a member runs {kind}")


class InThread:
    """A Worker running on a thread of the test, stopped at the end."""

    def __init__(self, worker):
        self.worker = worker
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        until(lambda: worker.id, 10, "the worker joined")

    def _run(self):
        try:
            self.worker.run(handle_signals=False)
        except Exception as e:  # reported by stop()
            self.error = e

    def stop(self):
        self.worker.stop()
        self.thread.join(15)
        assert not self.thread.is_alive(), "the worker did not stop"
        assert self.error is None, self.error


@pytest.fixture
def trio(start_node):
    a = start_node("a", extra=LEASE)
    b = start_node("b", peers=[a.udp], extra=LEASE)
    c = start_node("c", peers=[a.udp], extra=LEASE)
    for n in (a, b, c):
        wait_members(n.url, 3)
    return a, b, c


def test_a_kind_served_at_one_node_runs_what_another_node_took(trio):
    a, _, c = trio
    cc = dice.Client(c.url)
    # Nobody serves it yet: refused, once c has heard what every member runs
    # (until then a member might run anything, and nothing is refused).
    until(lambda: _refused(cc, "py.upper"), 15, "py.upper refused")
    w = dice.Worker(a.url, concurrency=2)

    @w.kind("py.upper")
    def upper(payload):
        return payload.upper()

    running = InThread(w)
    try:
        tid = accepts(cc, "py.upper", "hello")
        task = cc.wait(tid, timeout=15)
        assert (task.state, task.result, task.node) == ("done", "HELLO", "a")
        ids = cc.submit_many("py.upper", "abc", 50)
        assert all(t.state == "done" and t.result == "ABC"
                   for t in cc.wait(ids, timeout=30))
        listed = dice.Client(a.url)._get("/workers")
        assert listed["kinds"] == ["py.upper"]
        assert listed["workers"][0]["id"] == w.id
        assert listed["jobs_finished"] >= 51
    finally:
        running.stop()
    # Gone: the kind is no longer advertised, and a submit is refused again.
    assert dice.Client(a.url)._get("/workers")["workers"] == []
    until(lambda: _refused(cc, "py.upper"), 15, "py.upper withdrawn")


def _refused(client, kind):
    try:
        client.submit(kind, "x")
        return False
    except dice.BadRequest:
        return True


def test_a_killed_worker_s_task_runs_again_at_another_node(trio, tmp_path):
    a, b, c = trio
    cc = dice.Client(c.url)
    procs = []

    def worker(node, name, *flags):
        p = subprocess.Popen([sys.executable, str(HERE / "worker_proc.py"), node.url,
                              name, str(tmp_path), *flags],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(p)
        return p

    try:
        doomed = worker(a, "wa", "--hold")
        tid = accepts(cc, "py.hold", "-", retries=2)
        marker = tmp_path / f"started-{tid}"
        until(marker.exists, 15, "the task started at a's worker")
        assert marker.read_text() == "wa"
        until(lambda: cc.status(tid).state == "running", 10, "c sees it running")
        worker(b, "wb")
        until(lambda: "py.hold" in dice.Client(b.url)._get("/workers")["kinds"], 10,
              "b's worker joined")
        doomed.kill()  # mid-task, no goodbye
        doomed.wait(5)
        task = cc.wait(tid, timeout=30)
        assert task.state == "done"
        assert task.result == "ran by wb"
        assert task.node == "b"
        assert task.attempts == 2
        lost = dice.Client(a.url)._get("/workers")
        assert lost["workers"] == [] and lost["lapsed"] == 1 and lost["jobs_lost"] == 1
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)


def test_a_graceful_stop_finishes_the_running_job(start_node, tmp_path):
    a = start_node("a", extra=LEASE)
    ca = dice.Client(a.url)
    p = subprocess.Popen([sys.executable, str(HERE / "worker_proc.py"), a.url, "wa",
                          str(tmp_path)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    try:
        tid = accepts(ca, "py.upper", "x")
        assert ca.wait(tid, timeout=10).result == "X"
        p.terminate()  # SIGTERM: stop gracefully
        assert p.wait(10) == 0, p.stderr.read().decode()
        after = ca._get("/workers")
        assert after["workers"] == [] and after["left"] == 1 and after["lapsed"] == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(5)


def test_cancel_reaches_the_function_and_failures_keep_their_reason(start_node):
    a = start_node("a", extra=LEASE)
    ca = dice.Client(a.url)
    seen = threading.Event()
    w = dice.Worker(a.url, concurrency=2)

    @w.kind("py.wait")
    def wait_for_cancel(payload, job):
        if job.canceled.wait(20):
            seen.set()
        return "not canceled"

    @w.kind("py.bad")
    def bad(payload):
        if payload == "final":
            raise dice.FinalFailure("cannot read " + payload)
        raise ValueError("try " + payload)

    running = InThread(w)
    try:
        tid = accepts(ca, "py.wait")
        until(lambda: ca.status(tid).state == "running", 10, "py.wait running")
        ca.cancel(tid)
        assert seen.wait(10), "the function never saw the cancel"
        assert ca.wait(tid, timeout=10).state == "canceled"
        t = ca.wait(ca.submit("py.bad", "final", retries=3), timeout=10)
        assert (t.state, t.attempts, t.reason) == ("failed", 1, "cannot read final")
        t = ca.wait(ca.submit("py.bad", "again", retries=1, backoff=0.05), timeout=10)
        assert (t.state, t.attempts, t.reason) == ("failed", 2, "ValueError: try again")
    finally:
        running.stop()


def test_the_node_refuses_a_built_in_kind_name(start_node):
    a = start_node("a")
    w = dice.Worker(a.url)
    w.add_kind("echo", lambda p: p)
    with pytest.raises(dice.BadRequest, match="built into this node"):
        w.run(handle_signals=False)


def test_the_example_worker_counts_words(start_node):
    a = start_node("a", extra=LEASE)
    ca = dice.Client(a.url)
    example = HERE.parent / "examples" / "worker.py"
    p = subprocess.Popen([sys.executable, str(example)], env={**os.environ, "DICE_NODE": a.url},
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        tid = accepts(ca, "wordcount", "to be or not to be")
        t = ca.wait(tid, timeout=10)
        assert t.state == "done"
        assert json.loads(t.result) == [["to", 2], ["be", 2], ["or", 1]]
        t = ca.wait(ca.submit("wordcount", "  ", retries=2), timeout=10)
        assert (t.state, t.attempts, t.reason) == ("failed", 1, "no words to count")
        p.send_signal(signal.SIGINT)
        assert p.wait(10) == 0, p.stderr.read().decode()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(5)
