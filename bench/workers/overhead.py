#!/usr/bin/env python3
"""A kind served by a Python worker (dice.Worker) against the node's built-in
`echo`, side by side on one node: no-op tasks per second (a burst of N
submitted at once, until all are done) and one task's latency (submit to
done seen at the same node, one at a time), in alternating rounds.

    python3 bench/workers/overhead.py --node build/apps/dice-node/dice-node

The worker runs in its own process with the node's slot count as its
concurrency; both kinds return their payload."""
import argparse, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "clients/python"))
sys.path.insert(0, str(HERE.parent / "http_front"))
import dice  # noqa: E402
from front_common import percentile, running_node, stop_process  # noqa: E402

WORKER = """
import sys
sys.path.insert(0, {path!r})
import dice
w = dice.Worker({url!r}, concurrency={concurrency}, name="bench")
w.add_kind("py.noop", lambda payload: payload)
w.run()
"""


def healthy(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def done_count(c, kind):
    # The replica's counts (kept as tasks change, not walked): one kind
    # runs at a time, so every task done meanwhile is of this kind.
    return c.stats()["tasks"]["done"]


def burst(c, kind, n):
    """Tasks per second of n no-op tasks submitted at once."""
    before = done_count(c, kind)
    start = time.perf_counter()
    c.submit_many(kind, "x", n)
    deadline = start + 120
    while done_count(c, kind) < before + n:
        if time.perf_counter() > deadline:
            sys.exit(f"{kind}: {n} tasks not done in 120 s")
        time.sleep(0.02)
    return n / (time.perf_counter() - start)


def latencies(c, kind, n):
    out = []
    for _ in range(n):
        start = time.perf_counter()
        tid = c.submit(kind, "x")
        while c.status(tid).state != "done":
            pass
        out.append((time.perf_counter() - start) * 1000)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--node", default="build/apps/dice-node/dice-node")
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--tasks", type=int, default=2000, help="tasks per burst")
    ap.add_argument("--single", type=int, default=200, help="one-at-a-time tasks per round")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="dice-workers-bench-")
    with running_node(a.node, root, healthy, ["--slots", str(a.slots)]) as port:
        url = f"http://127.0.0.1:{port}"
        code = WORKER.format(path=str(HERE.parents[1] / "clients/python"), url=url,
                             concurrency=a.slots)
        worker = subprocess.Popen([sys.executable, "-c", code],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            c = dice.Client(url)
            for _ in range(200):
                if c._get("/workers")["kinds"] == ["py.noop"]:
                    break
                time.sleep(0.05)
            else:
                sys.exit("the worker did not join")
            rate = {"echo": [], "py.noop": []}
            lat = {"echo": [], "py.noop": []}
            for r in range(a.rounds):
                order = ("echo", "py.noop") if r % 2 == 0 else ("py.noop", "echo")
                for kind in order:
                    rate[kind].append(burst(c, kind, a.tasks))
                    lat[kind] += latencies(c, kind, a.single)
        finally:
            stop_process(worker, 10)
    print(f"one node, --slots {a.slots}, worker concurrency {a.slots}; "
          f"{a.rounds} rounds of {a.tasks} tasks at once and {a.single} one at a time")
    print(f"{'kind':10} {'tasks/s (median)':>17} {'rounds':>24} {'p50 ms':>8} {'p99 ms':>8}")
    for kind in ("echo", "py.noop"):
        rs = sorted(rate[kind])
        print(f"{kind:10} {rs[len(rs) // 2]:17,.0f} {' / '.join(f'{x:,.0f}' for x in rate[kind]):>24}"
              f" {percentile(lat[kind], 50):8.2f} {percentile(lat[kind], 99):8.2f}")
    e, w = sorted(rate["echo"]), sorted(rate["py.noop"])
    print(f"worker / echo: {w[len(w) // 2] / e[len(e) // 2]:.2f} of the tasks/s, "
          f"+{percentile(lat['py.noop'], 50) - percentile(lat['echo'], 50):.2f} ms p50")


if __name__ == "__main__":
    main()
