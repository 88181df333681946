#!/usr/bin/python3
"""Client side of bench/peers/run.sh: waits until a started system is ready,
runs the workloads against it and appends rows to the results CSV.

Usage:
  bench.py ports K        K free ports (TCP and UDP) on 127.0.0.1, one a line
  bench.py run SYSTEM --round R --csv FILE --ports "P ..." --pids "PID ..."
               --workers W --phase main|makespan [--tasks N] [--samples K]
               [--sleep-tasks M]

SYSTEM is dice (--ports: every node's HTTP port, node 1 first), celery, rq
(--ports: redis) or beanstalkd (--ports: beanstalkd). --pids are the
system's top processes (server and workers); CPU and RSS also count their
descendants. Phase main: throughput of N no-op tasks (with CPU and RSS),
then K latency samples. Phase makespan: M sleep tasks of 250 ms.
"""
import argparse
import http.client
import json
import math
import os
import socket
import sys
import time

SLEEP_S = 0.25
POLL_BATCH = 0.005    # how often a batch's end is polled (where it is polled)
POLL_ONE = 0.0005     # how often a single task's state is polled
WAIT_ONE_MS = 5000    # how long a DiCE node holds that poll until the task ends
TICK = os.sysconf("SC_CLK_TCK")
WATCH = []  # the system's top processes: a wait fails at once when one is gone


def free_ports(k):
    socks, ports = [], []
    while len(ports) < k:
        t = socket.socket()
        t.bind(("127.0.0.1", 0))
        port = t.getsockname()[1]
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:  # dice-node needs the UDP port too
            u.bind(("127.0.0.1", port))
        except OSError:
            t.close()
            continue
        socks += [t, u]
        ports.append(port)
    for s in socks:
        s.close()
    return ports


def exited(pid):  # gone, or a zombie its parent (run.sh) has not reaped yet
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def until(cond, seconds, what):
    """Polls cond() every POLL_BATCH until true; fails after seconds, or at
    once if a process of the system has exited (e.g. a bad --dice-args)."""
    deadline = time.monotonic() + seconds
    while not cond():
        dead = [p for p in WATCH if exited(p)]
        if dead:
            raise RuntimeError(f"{what}: process {dead[0]} exited (see its log)")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {seconds:.0f} s")
        time.sleep(POLL_BATCH)


def poll_until(cond, t0, what):
    """Polls one task's cond() every POLL_ONE, for at most 30 s from t0."""
    while not cond():
        if time.monotonic() > t0 + 30:
            raise TimeoutError(f"{what} not done in 30 s")
        time.sleep(POLL_ONE)


# --- the systems: wait_ready(workers), batch(kind, n) -> seconds from the
# first submit to the last result visible, one() -> (submit s, total s);
# DiCE's one() is a single request (submit s: None), and its
# two_requests() the submit and a second request for the result.

class Dice:
    PAYLOAD = {"noop": ("echo", ""), "sleep": ("sleep", str(int(SLEEP_S * 1000)))}
    CHUNK = 1000  # tasks per POST (the API takes up to 10,000)

    def __init__(self, ports):
        self.ports = ports
        self.conn = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=30)

    def get(self, path, port=None):
        conn = self.conn if port is None else http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError(f"GET {path}: {r.status} {body[:200]!r}")
        return json.loads(body)

    def post(self, kind, count):
        k, payload = self.PAYLOAD[kind]
        body = {"kind": k, "payload": payload}
        if count > 1:
            body["count"] = count
        self.conn.request("POST", "/tasks", json.dumps(body), {"Content-Type": "application/json"})
        r = self.conn.getresponse()
        data = r.read()
        if r.status != 201:
            raise RuntimeError(f"POST /tasks: {r.status} {data[:200]!r}")
        return json.loads(data)["ids"]

    def alive(self, port):
        try:
            return sum(n["state"] == "alive" for n in self.get("/nodes", port)["nodes"])
        except (OSError, ValueError, RuntimeError):
            return 0

    def wait_ready(self, workers):
        for p in self.ports:
            until(lambda: self.alive(p) == workers, 90, f"dice node :{p} seeing {workers} alive")

    def ended(self):
        t = self.get("/stats")["tasks"]
        return t["done"] + t["failed"]

    def batch(self, kind, n):
        base = self.ended()
        t0 = time.monotonic()
        for i in range(0, n, self.CHUNK):
            self.post(kind, min(self.CHUNK, n - i))
        until(lambda: self.ended() >= base + n, 60 + n, "dice batch")
        return time.monotonic() - t0

    def one(self):
        # Submit and result in one request: the node answers once the task
        # is replicated and has ended (POST /tasks?wait_ms), as a user who
        # wants the result asks for it.
        t0 = time.monotonic()
        k, payload = self.PAYLOAD["noop"]
        self.conn.request("POST", f"/tasks?wait_ms={WAIT_ONE_MS}",
                          json.dumps({"kind": k, "payload": payload}),
                          {"Content-Type": "application/json"})
        r = self.conn.getresponse()
        data = r.read()
        if r.status != 201:
            raise RuntimeError(f"POST /tasks?wait_ms: {r.status} {data[:200]!r}")
        (task,) = json.loads(data)["tasks"]
        if task["state"] not in ("done", "failed"):
            self.until_ended(task["id"], t0)
        return None, time.monotonic() - t0

    def until_ended(self, tid, t0):
        path = f"/tasks/{tid}?wait_ms={WAIT_ONE_MS}"
        poll_until(lambda: self.get(path)["state"] in ("done", "failed"),
                   t0, f"dice task {tid}")

    def two_requests(self):
        # The submit answered once replicated, then a second request held
        # until the task ends (as Celery's result.get() waits for the
        # backend's message).
        t0 = time.monotonic()
        (tid,) = self.post("noop", 1)
        t1 = time.monotonic()
        self.until_ended(tid, t0)
        return t1 - t0, time.monotonic() - t0


class CeleryPeer:
    def __init__(self, ports):
        os.environ["PEERS_REDIS_PORT"] = str(ports[0])
        import celery_app
        self.app = celery_app.app
        self.task = {"noop": (celery_app.noop, ()), "sleep": (celery_app.sleep, (SLEEP_S,))}

    def wait_ready(self, workers):
        # One worker process (with --concurrency W children) answers a ping.
        until(lambda: self.app.control.ping(timeout=0.5), 90, "celery worker ping")

    def batch(self, kind, n):
        task, args = self.task[kind]
        t0 = time.monotonic()
        results = [task.delay(*args) for _ in range(n)]
        for r in results:  # the result backend pushes each result (pub/sub)
            r.get(timeout=60 + n)
        return time.monotonic() - t0

    def one(self):
        t0 = time.monotonic()
        r = self.task["noop"][0].delay()
        t1 = time.monotonic()
        r.get(timeout=30)
        return t1 - t0, time.monotonic() - t0


class RQPeer:
    def __init__(self, ports):
        from redis import Redis
        from rq import Queue, Worker
        import peer_jobs
        self.redis = Redis(host="127.0.0.1", port=ports[0])
        self.queue = Queue("default", connection=self.redis)
        self.worker_cls = Worker
        self.task = {"noop": (peer_jobs.noop, ()), "sleep": (peer_jobs.sleep, (SLEEP_S,))}
        until(lambda: self._ping(), 30, "redis")

    def _ping(self):
        try:
            return self.redis.ping()
        except Exception:  # redis.ConnectionError while it starts
            return False

    def wait_ready(self, workers):
        until(lambda: self.worker_cls.count(connection=self.redis) >= workers, 90, "rq workers")

    def ended(self):
        # A job's result, its status and its entry in the finished (or failed)
        # registry are written in one MULTI: counting the registries is
        # counting the results visible.
        q = self.queue
        return self.redis.zcard(q.finished_job_registry.key) + self.redis.zcard(q.failed_job_registry.key)

    def batch(self, kind, n):
        from rq import Queue
        fn, args = self.task[kind]
        base = self.ended()
        t0 = time.monotonic()
        self.queue.enqueue_many([Queue.prepare_data(fn, args) for _ in range(n)])
        until(lambda: self.ended() >= base + n, 60 + n, "rq batch")
        return time.monotonic() - t0

    def one(self):
        t0 = time.monotonic()
        job = self.queue.enqueue(self.task["noop"][0])
        t1 = time.monotonic()
        poll_until(lambda: job.get_status(refresh=True) in ("finished", "failed"),
                   t0, f"rq job {job.id}")
        return t1 - t0, time.monotonic() - t0


class BeanstalkPeer:
    def __init__(self, ports):
        import beanstalk
        deadline = time.monotonic() + 30
        while True:
            try:
                self.c = beanstalk.Client(ports[0])
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.c.use("jobs")
        self.c.watch("results")
        self.c.ignore("default")
        self.body = {"noop": b"noop", "sleep": f"sleep {SLEEP_S}".encode()}

    def wait_ready(self, workers):
        until(lambda: int(self.c.stats_tube("jobs").get("current-waiting", 0)) >= workers,
              90, "beanstalkd workers")

    def results(self, n, seconds):
        got = []
        deadline = time.monotonic() + seconds
        while len(got) < n:
            left = deadline - time.monotonic()
            r = self.c.reserve(timeout=max(1, math.ceil(left))) if left > 0 else None
            if r is None:
                raise TimeoutError(f"beanstalkd: {len(got)} of {n} results in {seconds} s")
            got.append(r[0])
        return got

    def batch(self, kind, n):
        t0 = time.monotonic()
        for _ in range(n):
            self.c.put(self.body[kind])
        got = self.results(n, 60 + n)
        t = time.monotonic() - t0
        for job_id in got:  # consumed results go; not part of the timing
            self.c.delete(job_id)
        return t

    def one(self):
        t0 = time.monotonic()
        self.c.put(self.body["noop"])
        t1 = time.monotonic()
        (job_id,) = self.results(1, 30)
        t2 = time.monotonic()
        self.c.delete(job_id)
        return t1 - t0, t2 - t0


SYSTEMS = {"dice": Dice, "celery": CeleryPeer, "rq": RQPeer, "beanstalkd": BeanstalkPeer}


# --- the system's processes, from /proc

def children_of():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def tree(pids):
    kids, out, todo = children_of(), [], list(pids)
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def cpu_seconds(pids):
    """utime+stime of the processes and their descendants, plus the
    cutime+cstime of children that already exited (reaped by their parent,
    as Celery's pool and RQ's work horses are)."""
    total = 0
    for p in tree(pids):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        except (OSError, ValueError):
            pass
    return total / TICK


def rss_mib(pids):
    total = 0
    for p in tree(pids):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def pct(xs, p):  # nearest rank
    xs = sorted(xs)
    return xs[max(0, math.ceil(p / 100 * len(xs)) - 1)]


def run(a):
    ports = [int(p) for p in a.ports.split()]
    pids = [int(p) for p in a.pids.split()]
    WATCH[:] = pids
    sysm = SYSTEMS[a.system](ports)
    rows = []

    def row(workload, metric, value):
        rows.append(f"{a.system},{a.round},{workload},{metric},{value:.6g}")
        print(f"  {a.system} round {a.round}: {workload} {metric} = {value:.4g}", flush=True)

    sysm.wait_ready(a.workers)
    sysm.batch("noop", 2 * a.workers)  # warm-up: every worker has run a task
    time.sleep(0.5)
    if a.phase == "main":
        cpu0 = cpu_seconds(pids)
        secs = sysm.batch("noop", a.tasks)
        time.sleep(0.5)  # the work still trailing the last result counts too
        cpu1 = cpu_seconds(pids)
        row("throughput", "tasks_per_s", a.tasks / secs)
        row("throughput", "seconds", secs)
        row("cpu", "cpu_s_per_1000", (cpu1 - cpu0) / a.tasks * 1000)
        row("rss", "rss_mib", rss_mib(pids))
        time.sleep(1)  # idle again before the latency samples
        for _ in range(max(5, a.samples // 10)):
            sysm.one()
        samples = [sysm.one() for _ in range(a.samples)]
        total = [t * 1000 for _, t in samples]
        row("latency", "p50_ms", pct(total, 50))
        row("latency", "p99_ms", pct(total, 99))
        if hasattr(sysm, "two_requests"):  # DiCE: its submit answered apart too
            samples = [sysm.two_requests() for _ in range(a.samples)]
            total = [t * 1000 for _, t in samples]
            row("latency", "two_requests_p50_ms", pct(total, 50))
            row("latency", "two_requests_p99_ms", pct(total, 99))
        row("latency", "submit_p50_ms", pct([s * 1000 for s, _ in samples], 50))
    else:
        secs = sysm.batch("sleep", a.sleep_tasks)
        row("makespan", f"seconds_{a.workers}w", secs)
        row("makespan", f"share_{a.workers}w", a.sleep_tasks * SLEEP_S / a.workers / secs)
    with open(a.csv, "a") as f:
        f.write("\n".join(rows) + "\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "ports":
        print("\n".join(map(str, free_ports(int(sys.argv[2])))))
        return
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("system", choices=sorted(SYSTEMS))
    ap.add_argument("--round", type=int, required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--ports", required=True)
    ap.add_argument("--pids", required=True)
    ap.add_argument("--workers", type=int, required=True)
    ap.add_argument("--phase", choices=["main", "makespan"], required=True)
    ap.add_argument("--tasks", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--sleep-tasks", type=int, default=128)
    run(ap.parse_args())


if __name__ == "__main__":
    main()
