"""The client against a 2-node cluster: what a user of the queue checks."""

import datetime
import time

import pytest

import dice


def test_submit_at_one_node_wait_and_read_at_the_other(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    tid = ca.submit("echo", "hello from a")
    task = cb.wait(tid, timeout=15)
    assert task.id == tid
    assert task.state == "done"
    assert task.result == "hello from a"
    assert task.kind == "echo" and task.attempts >= 1
    assert task.node in ("a", "b")
    assert cb.status(tid).result == "hello from a"


def test_run_submits_and_answers_with_the_end_in_one_call(cluster):
    a, _ = cluster
    ca = dice.Client(a.url)
    task = ca.run("echo", "ran", timeout=15)
    assert task.state == "done" and task.result == "ran"
    slow = ca.run("sleep", "300", retries=1)
    assert slow.state == "done"
    with pytest.raises(TypeError):
        ca.run("echo", "x", colour="red")


def test_submit_many_and_results(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    ids = ca.submit_many("echo", "x", 300)
    assert len(ids) == 300 and len(set(ids)) == 300
    tasks = cb.wait(ids, timeout=30)
    assert [t.id for t in tasks] == ids
    got = cb.results(ids)  # 300 ids: two requests of at most 256
    assert set(got) == set(ids)
    assert all(t.state == "done" and t.result == "x" for t in got.values())
    assert cb.results(["no-such-task"]) == {}


def test_retries_of_a_failing_shell_task(cluster):
    a, b = cluster
    cb = dice.Client(b.url)  # submitted at b, run at a (the one allowing it)
    tid = cb.submit("shell", [a.false], retries=1,
                    backoff=datetime.timedelta(milliseconds=50))
    task = cb.wait(tid, timeout=15)
    assert task.state == "failed"
    assert task.attempts == 2
    assert task.max_attempts == 2
    assert task.backoff_ms == 50
    assert task.reason


def test_policy_fields_reach_the_task(cluster):
    a, _ = cluster
    c = dice.Client(a.url)
    tid = c.submit("sleep", "10", delay=30, expires=60, time_limit=2.5,
                   keep=datetime.timedelta(hours=1), priority=3)
    t = c.status(tid)
    assert t.state == "ready"
    assert t.time_limit_ms == 2500
    assert t.keep_for_ms == 3_600_000
    assert t.priority == 3
    now_ms = time.time() * 1000
    assert 25_000 < t.not_before_ms - now_ms <= 30_000
    assert 55_000 < t.expires_ms - now_ms <= 60_000
    c.cancel(tid)
    assert c.wait(tid, timeout=5).state == "canceled"


def test_a_task_that_expires_before_its_delay_ends(cluster):
    a, _ = cluster
    c = dice.Client(a.url)
    with pytest.raises(dice.BadRequest) as e:
        c.submit("echo", "x", delay=2, expires=1)  # cannot work: refused
    assert "expire" in e.value.message
    # an absolute expiry (a datetime) later than the start time (at)
    tid = c.submit("echo", "on time", at=time.time() + 0.5,
                   expires=datetime.datetime.now() + datetime.timedelta(seconds=20))
    assert c.wait(tid, timeout=10).result == "on time"
    # not started by its expiry: it ends expired and never runs
    # held here, the lock keeps the task from starting until it expires
    name = f"held-{time.time_ns()}"
    with c.lock(name, timeout=10):
        tid = c.submit("echo", "too late", locks=[name], expires=0.5)
        task = c.wait(tid, timeout=10)
    assert task.state == "expired"
    assert task.started_at_ms is None


def test_idempotency_key_gives_the_same_task_at_any_node(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    key = f"order-{time.time_ns()}"
    first = ca.submit("echo", "once", key=key)
    assert first.startswith("key-")
    cb.wait(first, timeout=15)
    assert cb.submit("echo", "once", key=key) == first
    assert ca.submit("echo", "once", key=key) == first


def test_cancel_and_remove(cluster):
    a, b = cluster
    c = dice.Client(a.url)
    tid = c.submit("echo", "never", delay=60)
    c.cancel(tid)
    assert c.wait(tid, timeout=5).state == "canceled"
    with pytest.raises(dice.Conflict):
        c.cancel(tid)
    c.remove(tid)
    # b may still show the task canceled, an end state wait() returns at
    # once on, until the remove reaches it.
    cb, deadline = dice.Client(b.url), time.monotonic() + 10
    while cb.status(tid).state != "removed" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cb.status(tid).state == "removed"
    with pytest.raises(dice.Conflict):
        c.remove(tid)
    with pytest.raises(dice.NotFound):
        c.status("a-no-such-task")
    with pytest.raises(dice.NotFound):
        c.cancel("a-no-such-task")


def test_paging_over_several_pages(cluster):
    a, b = cluster
    c = dice.Client(b.url)
    ids = dice.Client(a.url).submit_many("echo", "paged", 250)
    c.wait(ids, timeout=30)
    listed = [t.id for t in c.tasks(kind="echo", page_size=100)]
    assert set(ids) <= set(listed)
    assert len(listed) == len(set(listed))
    assert all(t.state == "done" for t in c.tasks(state="done", page_size=100))
    assert len(list(c.tasks(state="done", kind="echo", page_size=10_000))) == \
        len([t for t in c.tasks(page_size=7) if t.state == "done" and t.kind == "echo"])
    with pytest.raises(dice.BadRequest):
        next(c.tasks(state="sleeping"))


def test_publish_at_one_node_watch_at_the_other(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    topic = f"deploys-{time.time_ns()}"
    sent = ca.publish(topic, "v42 rolled out")
    assert sent.topic == topic and sent.origin == "a"
    ca.publish(topic, "v43 rolled out")
    got = list(cb.watch(topic, count=2, timeout=10))
    assert [e.data for e in got] == ["v42 rolled out", "v43 rolled out"]
    # following from the last index seen: only what comes next
    later = list(cb.watch(topic, since=got[-1].index, timeout=0.3))
    assert later == []
    ca.publish(topic, "v44")
    assert [e.data for e in cb.watch(topic, since=got[-1].index, count=1, timeout=10)] == ["v44"]


def test_a_bad_kind_is_a_bad_request_with_the_nodes_reason(cluster):
    a, _ = cluster
    c = dice.Client(a.url)
    with pytest.raises(dice.BadRequest) as e:
        c.submit("no-such-kind", "x")
    assert e.value.status == 400
    assert "unknown kind 'no-such-kind'" in e.value.message
    assert a.url in str(e.value)


def test_nodes_health_stats(cluster):
    a, b = cluster
    c = dice.Client(b.url)
    assert c.health() == {"id": "b", "ok": True}
    assert {n["id"] for n in c.nodes()} == {"a", "b"}
    assert c.stats()["http"]["requests"] > 0


def test_lock_excludes_a_second_holder(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    name = f"db-{time.time_ns()}"
    with ca.lock(name, timeout=10, lease=2) as held:
        assert held.token
        # renewed past its lease while held
        time.sleep(1.2)
        with pytest.raises(TimeoutError):
            with cb.lock(name, timeout=0.5):
                pass
        assert not held.lost
    with cb.lock(name, timeout=10):
        pass


def test_a_chain_and_a_workflow(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    first = ca.submit("echo", "one")
    second = cb.submit("echo", "two", after=[first])
    assert cb.wait(second, timeout=15).state == "done"
    assert ca.status(second).started_at_ms >= ca.status(first).finished_at_ms
    w = ca.submit_workflow([
        {"name": "map", "kind": "echo", "payloads": ["x", "y", "z"]},
        {"name": "reduce", "kind": "echo", "payload": "r", "after": ["map"]},
    ])
    assert len(w["steps"]["map"]) == 3
    end = cb.wait(w["steps"]["reduce"][0], timeout=15)
    assert end.state == "done"
    graph = cb.workflow(w["workflow"])
    assert graph["state"] == "done"
    assert [s["name"] for s in graph["steps"]] == ["map", "reduce"]
    with pytest.raises(dice.BadRequest):
        ca.submit_workflow([{"name": "a", "kind": "echo", "after": ["nope"]}])


def test_a_schedule(cluster):
    a, b = cluster
    ca, cb = dice.Client(a.url), dice.Client(b.url)
    added = ca.add_schedule("beat", "echo", "tick", every=1, exclusive=True)
    assert added["schedule"] == "beat" and not added.get("existing")
    assert cb.add_schedule("beat", "echo", "tick", every=1)["existing"]
    listed = cb.schedules()
    assert [s["name"] for s in listed] == ["beat"]
    assert listed[0]["exclusive"] and listed[0]["every_ms"] == 1000
    deadline = time.monotonic() + 15
    ticks = []
    while time.monotonic() < deadline and len(ticks) < 2:
        ticks = [t for t in cb.tasks(state="done", kind="echo")
                 if cb.status(t.id).payload == "tick"]
        time.sleep(0.2)
    assert len(ticks) >= 2
    ca.remove_schedule("beat")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and cb.schedules():
        time.sleep(0.1)
    assert cb.schedules() == []
    with pytest.raises(dice.NotFound):
        ca.remove_schedule("never-added")
    with pytest.raises(ValueError):
        ca.add_schedule("x", "echo", "t", every=1, cron="* * * * *")
    with pytest.raises(dice.BadRequest):
        ca.add_schedule("bad name!", "echo", "t", every=1)
