#!/usr/bin/python3
"""Client side of bench/workflows/run.sh: runs one workflow scenario against
a started system and appends rows to the results CSV; summarises the CSV.

Usage:
  workflows.py ports K      K free ports (TCP and UDP) on 127.0.0.1, one a line
  workflows.py run SYSTEM --scenario chord|chain|chord_kill --round R
               --csv FILE --ports "P ..." --pids "PID ..." --victim PID
               [--width N] [--steps M] [--timeout S] [--kill-timeout S]
  workflows.py summary CSV [--json FILE]

SYSTEM is dice (--ports: every node's HTTP port, node 1 first) or celery /
celery-late (--ports: redis; the mode is in the environment, see
celery_app.py). --pids are the system's top processes (a wait fails at once
when one exits, but for the victim once it was killed); --victim is the
worker that chord_kill kills with SIGKILL, itself and the children it has
at that moment (a Celery worker's pool), each by its pid.

Scenarios (times from the first submit call):
  chord       N no-op tasks, then a callback that runs after all of them;
              until the callback's result is visible to the submitter
  chain       M no-op steps, each after the one before, all submitted at
              once; until the last step's result is visible
  chord_kill  the chord, the victim killed once N/2 members have ended;
              whether and when the callback's result arrives, waiting at
              most --kill-timeout seconds after the kill
"""
import argparse
import csv
import http.client
import json
import os
import signal
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from bench import exited as gone  # noqa: E402 (exited, or a zombie run.sh has not reaped)

POLL = 0.002       # how often a DiCE task's state (or a progress count) is read
ENDED = ("done", "failed", "canceled", "expired", "removed")
WATCH = []         # the system's top processes, minus the victim once killed


def until(cond, seconds, what):
    """Polls cond() every POLL until it is true; TimeoutError after seconds,
    RuntimeError at once if a process of the system exited."""
    deadline = time.monotonic() + seconds
    while True:
        v = cond()
        if v:
            return v
        dead = [p for p in WATCH if gone(p)]
        if dead:
            raise RuntimeError(f"{what}: process {dead[0]} exited (see its log)")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {seconds:.0f} s")
        time.sleep(POLL)


def children(pid):
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def age_s(pid):
    """Seconds since the process started."""
    with open(f"/proc/{pid}/stat") as f:
        started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
    with open("/proc/uptime") as f:
        return float(f.read().split()[0]) - started


def kill_worker(pid):
    """SIGKILL to the worker and to its children of this moment, by pid:
    the worker is lost with what it was running, as on a machine crash."""
    if pid in WATCH:  # first, so that no wait takes its end for a failure
        WATCH.remove(pid)
    todo, tree = [pid], []
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += children(p)
    for p in tree:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return tree


# --- DiCE over its HTTP API -------------------------------------------------

class Dice:
    def __init__(self, ports):
        self.ports = ports
        self.conn = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=30)

    def call(self, method, path, body=None, ok=(200,)):
        # A GET goes once more on a connection the node closed while idle; a
        # POST never does (the first may have enqueued).
        for attempt in (1, 2) if method == "GET" else (2,):
            try:
                if body is None:
                    self.conn.request(method, path)
                else:
                    self.conn.request(method, path, json.dumps(body),
                                      {"Content-Type": "application/json"})
                r = self.conn.getresponse()
                data = r.read()
                break
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                if attempt == 2:
                    raise
        if r.status not in ok:
            raise RuntimeError(f"{method} {path}: {r.status} {data[:300]!r}")
        return json.loads(data)

    def submit(self, body):
        # 201: another replica holds the tasks; 202: not yet, ids given anyway.
        return self.call("POST", "/tasks", body, ok=(201, 202))["ids"]

    def task(self, tid):
        return self.call("GET", f"/tasks/{tid}")

    def tasks(self, ids):
        out = {}
        for i in range(0, len(ids), 256):  # GET /tasks takes up to 256 ids
            got = self.call("GET", "/tasks?ids=" + ",".join(ids[i:i + 256]))["tasks"]
            out.update((t["id"], t) for t in got)
        return out

    def wait_ready(self):
        def alive(port):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/nodes")
                nodes = json.loads(c.getresponse().read())["nodes"]
                return sum(n["state"] == "alive" for n in nodes) == len(self.ports)
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                return False
        for p in self.ports:
            until(lambda: alive(p), 90, f"dice node :{p} seeing {len(self.ports)} alive")
        ids = self.submit({"kind": "echo", "payload": "", "count": 2 * len(self.ports)})
        until(lambda: all(self.task(i)["state"] in ENDED for i in ids), 60, "dice warm-up")

    def wait_end(self, tid, seconds):
        """The task's detail once it ended; None if not within seconds."""
        try:
            return until(lambda: (lambda t: t if t["state"] in ENDED else None)(self.task(tid)),
                         seconds, f"dice task {tid}")
        except TimeoutError:
            return None

    def submit_chord(self, n):
        members = self.submit({"kind": "echo", "payload": "", "count": n})
        callback = self.submit({"kind": "echo", "payload": "callback", "after": members})[0]
        return members, callback

    def order(self, before, after_id):
        """How many of `before` ended after `after_id` started (must be 0), and
        the callback's start minus the last member's end, ms."""
        rows = self.tasks(before)
        cb = self.task(after_id)
        ends = [rows[i]["finished_at_ms"] or 0 for i in before if i in rows]
        late = sum(e > cb["started_at_ms"] for e in ends)
        return late, cb["started_at_ms"] - max(ends)

    def chord(self, n, timeout):
        t0 = time.monotonic()
        members, cb = self.submit_chord(n)
        t1 = time.monotonic()
        end = self.wait_end(cb, timeout)
        t2 = time.monotonic()
        if end is None or end["state"] != "done":
            raise RuntimeError(f"dice chord callback {cb}: {end and end['state']} after {t2 - t0:.1f} s")
        late, handoff = self.order(members, cb)
        return {"seconds": t2 - t0, "submit_seconds": t1 - t0,
                "parents_seen": len(end["parents"]), "order_violations": late,
                "handoff_ms": handoff}

    def chain(self, m, timeout):
        t0 = time.monotonic()
        ids = []
        for i in range(m):
            body = {"kind": "echo", "payload": ""}
            if ids:
                body["after"] = [ids[-1]]
            ids += self.submit(body)
        t1 = time.monotonic()
        end = self.wait_end(ids[-1], timeout)
        t2 = time.monotonic()
        if end is None or end["state"] != "done":
            raise RuntimeError(f"dice chain end {ids[-1]}: {end and end['state']} after {t2 - t0:.1f} s")
        rows = self.tasks(ids)
        gaps = [rows[b]["started_at_ms"] - rows[a]["finished_at_ms"] for a, b in zip(ids, ids[1:])]
        return {"seconds": t2 - t0, "ms_per_step": (t2 - t0) / m * 1000, "submit_seconds": t1 - t0,
                "handoff_p50_ms": statistics.median(gaps), "handoff_max_ms": max(gaps),
                "handoffs_over_50ms": sum(g > 50 for g in gaps),
                "steps_off_node1": sum(rows[i]["node"] != "w1" for i in ids),
                "order_violations": sum(g < 0 for g in gaps)}

    def progress(self):
        """A counter of tasks ended, read on its own connection to node 1 (the
        killer thread reads it while the main thread submits)."""
        c = http.client.HTTPConnection("127.0.0.1", self.ports[0], timeout=5)
        def ended():
            c.request("GET", "/stats")
            t = json.loads(c.getresponse().read())["tasks"]
            return t["done"] + t["failed"]
        return ended

    def chord_kill(self, n, killer, timeout):
        t0 = time.monotonic()
        members, cb = self.submit_chord(n)
        t1 = time.monotonic()
        tk = killer.wait()
        end = self.wait_end(cb, max(0.0, tk + timeout - time.monotonic()))
        t2 = time.monotonic()
        out = {"submit_seconds": t1 - t0, "arrived": int(bool(end) and end["state"] == "done")}
        rows = self.tasks(members)
        out["members_done"] = sum(r["state"] == "done" for r in rows.values())
        out["members_rerun"] = sum(r["attempts"] > 1 for r in rows.values())
        if out["arrived"]:
            late, handoff = self.order(members, cb)
            out.update(seconds=t2 - t0, after_kill_s=t2 - tk, order_violations=late,
                       handoff_ms=handoff)
        else:
            print(f"  dice: callback {cb} {end['state'] if end else 'not ended'} "
                  f"{t2 - tk:.1f} s after the kill", flush=True)
            out["callback_failed"] = int(bool(end))
        return out


# --- Celery canvas --------------------------------------------------------

class CeleryCanvas:
    def __init__(self, ports):
        os.environ["WORKFLOWS_REDIS_PORT"] = str(ports[0])
        import celery_app
        from redis import Redis
        self.app = celery_app.app
        self.noop, self.collect = celery_app.noop, celery_app.collect
        self.port = ports[0]
        self.results_db = Redis(host="127.0.0.1", port=ports[0], db=1)

    def wait_ready(self, workers):
        until(lambda: len(self.app.control.ping(timeout=0.5) or []) >= workers, 90,
              f"{workers} celery workers answering a ping")
        for r in [self.noop.delay() for _ in range(2 * workers)]:
            r.get(timeout=60)

    def submit_chord(self, n):
        from celery import chord, group
        return chord(group(self.noop.si() for _ in range(n)))(self.collect.s())

    def chord(self, n, timeout):
        t0 = time.monotonic()
        res = self.submit_chord(n)
        t1 = time.monotonic()
        given = res.get(timeout=timeout)
        t2 = time.monotonic()
        return {"seconds": t2 - t0, "submit_seconds": t1 - t0, "parents_seen": given}

    def chain(self, m, timeout):
        from celery import chain
        t0 = time.monotonic()
        res = chain(*[self.noop.si() for _ in range(m)]).apply_async()
        t1 = time.monotonic()
        res.get(timeout=timeout)
        t2 = time.monotonic()
        return {"seconds": t2 - t0, "ms_per_step": (t2 - t0) / m * 1000, "submit_seconds": t1 - t0}

    def progress(self):
        """Results stored so far (one key each in db 1, plus the chord's
        counter), on its own connection."""
        from redis import Redis
        return Redis(host="127.0.0.1", port=self.port, db=1).dbsize

    def chord_kill(self, n, killer, timeout):
        from celery.exceptions import TimeoutError as CeleryTimeout
        t0 = time.monotonic()
        res = self.submit_chord(n)
        t1 = time.monotonic()
        tk = killer.wait()
        out = {"submit_seconds": t1 - t0}
        try:
            given = res.get(timeout=max(0.1, tk + timeout - time.monotonic()), propagate=False)
            t2 = time.monotonic()
            out["arrived"] = int(res.state == "SUCCESS")
            if out["arrived"]:
                out.update(seconds=t2 - t0, after_kill_s=t2 - tk, parents_seen=given)
            else:
                out["callback_failed"] = 1
                print(f"  {self.name}: callback {res.state}: {given!r}", flush=True)
        except CeleryTimeout:
            out["arrived"] = 0
            # Where the members that never ran are: messages a worker took
            # and did not acknowledge wait in kombu's `unacked` hash until a
            # sweep puts those past the visibility timeout back in the queue;
            # a sweep runs only while it holds `unacked_mutex` (300 s).
            from redis import Redis
            broker = Redis(host="127.0.0.1", port=self.port, db=0)
            out.update(unacked_left=broker.hlen("unacked"), queued_left=broker.llen("celery"),
                       restore_mutex_ttl_s=broker.ttl("unacked_mutex"))
            print(f"  {self.name}: no callback result {timeout:.0f} s after the kill "
                  f"(state {res.state}); broker: {out['unacked_left']} unacknowledged, "
                  f"{out['queued_left']} queued, unacked_mutex ttl {out['restore_mutex_ttl_s']} s",
                  flush=True)
        states = [m.state for m in res.parent.results]
        out["members_done"] = states.count("SUCCESS")
        out["members_failed"] = states.count("FAILURE")
        return out


class Killer(threading.Thread):
    """Kills the victim once `ended()` has grown by `half` from its value at
    start, whatever the submitter is doing then (Celery's submit of a chord
    of 1,000 lasts about as long as its members take to run)."""

    def __init__(self, name, ended, half, victim, seconds):
        super().__init__(daemon=True)
        self.name_, self.ended, self.half, self.victim = name, ended, half, victim
        self.base = ended()
        self.t0 = time.monotonic()
        self.deadline = self.t0 + seconds
        self.at = self.tk = None
        self.start()

    def run(self):
        while time.monotonic() < self.deadline:
            got = self.ended() - self.base
            if got >= self.half:
                self.tk = time.monotonic()
                self.age = age_s(self.victim)
                killed = kill_worker(self.victim)
                self.at = got
                print(f"  {self.name_}: killed pids {killed} at {got} of {2 * self.half} "
                      f"members ended, {self.tk - self.t0:.2f} s after the submit", flush=True)
                return
            time.sleep(POLL)

    def wait(self):
        """The moment of the kill (monotonic); raises if it never came."""
        self.join(max(0.0, self.deadline - time.monotonic()) + 5)
        if self.tk is None:
            raise TimeoutError(f"{self.name_}: half the chord never ended; nobody killed")
        return self.tk


def run(a):
    ports = [int(p) for p in a.ports.split()]
    WATCH[:] = [int(p) for p in a.pids.split()]
    if a.system == "dice":
        sysm = Dice(ports)
        sysm.wait_ready()
    else:
        sysm = CeleryCanvas(ports)
        sysm.name = a.system
        sysm.wait_ready(a.workers)
    time.sleep(0.5)  # idle before measuring
    if a.scenario == "chord":
        out = sysm.chord(a.width, a.timeout)
    elif a.scenario == "chain":
        out = sysm.chain(a.steps, a.timeout)
    else:
        killer = Killer(a.system, sysm.progress(), a.width // 2, a.victim, a.timeout)
        out = sysm.chord_kill(a.width, killer, a.kill_timeout)
        out["killed_at_ended"] = killer.at
        out["kill_at_s"] = killer.tk - killer.t0
        out["victim_age_s"] = killer.age
    rows = []
    for metric, value in out.items():
        rows.append([a.system, a.round, a.scenario, metric, f"{value:.6g}"])
        print(f"  {a.system} round {a.round}: {a.scenario} {metric} = {value:.4g}", flush=True)
    with open(a.csv, "a", newline="") as f:
        csv.writer(f).writerows(rows)


# --- summary ----------------------------------------------------------------

ORDER = ["dice", "celery", "celery-late"]
TIMES = ("seconds", "ms_per_step", "submit_seconds", "after_kill_s")  # DiCE / peer ratios


def summary(path, json_path):
    vals = {}
    for r in csv.DictReader(open(path)):
        vals.setdefault((r["scenario"], r["metric"]), {}).setdefault(r["system"], []).append(float(r["value"]))
    if not vals:
        sys.exit("workflows.py: no results")
    systems = [s for s in ORDER if any(s in by for by in vals.values())]
    peers = [s for s in systems if s != "dice"]
    rounds = max(len(v) for by in vals.values() for v in by.values())
    head = ["scenario", "metric"] + systems + [f"dice/{p}" for p in peers]
    lines, record = [head], {"rounds": rounds, "medians": {}, "ratios": {}, "per_round": {}}
    for (sc, m), by in vals.items():
        med = {s: statistics.median(v) for s, v in by.items()}
        cells = [sc, m] + [f"{med[s]:.4g}" if s in med else "-" for s in systems]
        for p in peers:
            ok = m in TIMES and "dice" in med and med.get(p)
            cells.append(f"{med['dice'] / med[p]:.3g}" if ok else "")
            if ok:
                record["ratios"].setdefault(sc, {}).setdefault(m, {})[f"dice/{p}"] = med["dice"] / med[p]
        lines.append(cells)
        record["medians"].setdefault(sc, {})[m] = med
        record["per_round"].setdefault(sc, {})[m] = by
    width = [max(len(l[i]) for l in lines) for i in range(len(head))]
    print(f"medians over {rounds} round(s); a metric missing in a round (e.g. seconds of a "
          f"callback that never arrived) is a median of the rounds that have it")
    for l in lines:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(l, width))))
    kills = {s: vals.get(("chord_kill", "arrived"), {}).get(s, []) for s in systems}
    for s in systems:
        if kills[s]:
            after = vals.get(("chord_kill", "after_kill_s"), {}).get(s, [])
            print(f"chord_kill {s}: callback arrived in {int(sum(kills[s]))} of {len(kills[s])} round(s)"
                  + (f", {', '.join(f'{x:.2f}' for x in after)} s after the kill" if after else ""))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "summary":
        ap = argparse.ArgumentParser(usage=__doc__)
        ap.add_argument("cmd")
        ap.add_argument("csv")
        ap.add_argument("--json")
        a = ap.parse_args()
        summary(a.csv, a.json)
        return
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("system", choices=ORDER)
    ap.add_argument("--scenario", choices=["chord", "chain", "chord_kill"], required=True)
    ap.add_argument("--round", type=int, required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--ports", required=True)
    ap.add_argument("--pids", required=True)
    ap.add_argument("--victim", type=int, required=True)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--kill-timeout", type=float, default=60)
    run(ap.parse_args())


if __name__ == "__main__":
    main()
