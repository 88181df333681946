#!/usr/bin/env python3
"""What a replica holds as tasks run: RSS, journal bytes and tasks held of
each of 3 dice-node processes after 10k, 100k (and 1M) no-op tasks, run in
waves of 2,000 (each submitted once the last ended), with a short and with
the default retention; then the restart time of a node on its journal, and
the bytes a new node receives before it holds the replica.

Usage: retention.py --node BIN [--checkpoints 10000,100000] [--keep-ms MS]
                    [--label NAME] [--csv FILE]
Prints a table and appends rows (label, tasks, metric, value) to --csv.
Talks to 127.0.0.1 only; every process it starts it stops by pid.
"""
import argparse, csv, json, os, shutil, signal, socket, subprocess, sys, tempfile, time
import urllib.request

def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def http(port, path, body=None, timeout=30):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 data=None if body is None else json.dumps(body).encode(),
                                 method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())

class Node:
    def __init__(self, binary, root, name, peers, keep_ms):
        self.name, self.udp, self.port = name, free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir, exist_ok=True)
        self.args = [binary, "--id", name, "--listen", f"127.0.0.1:{self.udp}",
                     "--http", f"127.0.0.1:{self.port}", "--data-dir", self.dir,
                     "--slots", "2", "--keep-finished-ms", str(keep_ms)]
        for p in peers:
            self.args += ["--peer", p]
        self.log = open(os.path.join(root, name + ".log"), "ab")
        self.proc = None

    def start(self):
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=self.log)
        deadline = t0 + 120
        while time.monotonic() < deadline:
            try:
                if http(self.port, "/health", timeout=1).get("ok"):
                    return time.monotonic() - t0
            except Exception:
                pass
            if self.proc.poll() is not None:
                sys.exit(f"{self.name} exited: see {self.log.name}")
            time.sleep(0.02)
        sys.exit(f"{self.name} never became healthy")

    def stop(self, kill=False):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def journal_bytes(self):
        total = 0
        for dirpath, _, files in os.walk(self.dir):
            total += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
        return total

    def stats(self):
        return http(self.port, "/stats")

def run_tasks(entry, count, wave=2000):
    """Submits `count` echo tasks at `entry` in waves of `wave`, each once
    the previous one ended there: tasks run, not a backlog queued (a
    backlog's memory is the live tasks', not what retention keeps)."""
    left = count
    while left > 0:
        n = min(left, wave)
        try:
            http(entry.port, "/tasks", {"kind": "echo", "payload": "", "count": n}, timeout=120)
        except urllib.error.HTTPError as e:
            if e.code in (429, 503):
                time.sleep(0.5)
                continue
            raise
        left -= n
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            t = entry.stats()["tasks"]
            if t["ready"] + t["running"] == 0:
                break
            time.sleep(0.05)

def settled(nodes, total):
    """Every node's tasks ended: none ready or running, and done + forgotten
    reached what was submitted."""
    for n in nodes:
        s = n.stats()
        t, q = s["tasks"], s["queue"]
        if t["ready"] or t["running"] or t["done"] + q["tasks_forgotten"] < total:
            return False
    return True

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--node", required=True)
    ap.add_argument("--checkpoints", default="10000,100000")
    ap.add_argument("--keep-ms", type=int, default=86_400_000)
    ap.add_argument("--label", default="")
    ap.add_argument("--csv", default="")
    ap.add_argument("--settle-s", type=float, default=31,
                    help="with a short retention, wait this long more before reading")
    a = ap.parse_args()
    label = a.label or f"keep {a.keep_ms} ms"
    root = tempfile.mkdtemp(prefix="dice-retention-")
    nodes, rows = [], []
    try:
        first = Node(a.node, root, "r1", [], a.keep_ms)
        first.start()
        nodes.append(first)
        for name in ("r2", "r3"):
            n = Node(a.node, root, name, [f"127.0.0.1:{first.udp}"], a.keep_ms)
            n.start()
            nodes.append(n)
        time.sleep(1.5)
        done = 0
        print(f"{'label':<22}{'tasks':>9}{'held':>9}{'RSS MiB (3 nodes)':>22}{'journal MiB':>24}{'s':>8}")
        t0 = time.monotonic()
        for cp in [int(x) for x in a.checkpoints.split(",")]:
            run_tasks(first, cp - done)
            done = cp
            deadline = time.monotonic() + 600
            while not settled(nodes, done) and time.monotonic() < deadline:
                time.sleep(0.5)
            # Past the retention (and its 1 s grid), then let compaction run,
            # and past the 30 s a forgotten id stays refused by id: what a
            # node holds once the tasks run are gone from every list.
            if a.keep_ms < 60_000:
                time.sleep(a.keep_ms / 1000 + 2.5 + a.settle_s)
            rss = [n.rss_kib() / 1024 for n in nodes]
            jb = [n.journal_bytes() / 2**20 for n in nodes]
            held = [n.stats()["tasks"]["total"] for n in nodes]
            print(f"{label:<22}{done:>9}{max(held):>9}{' / '.join(f'{x:.1f}' for x in rss):>22}"
                  f"{' / '.join(f'{x:.1f}' for x in jb):>24}{time.monotonic() - t0:>8.0f}", flush=True)
            rows += [(label, done, "rss_mib_max", max(rss)), (label, done, "journal_mib_max", max(jb)),
                     (label, done, "tasks_held_max", max(held))]
        # A node killed and restarted on its journal: until it answers, and
        # until its replica is loaded (the journal's log line says so).
        victim = nodes[1]
        victim.stop(kill=True)
        t0 = time.monotonic()
        victim.start()
        want = first.stats()["tasks"]["total"]
        while victim.stats()["tasks"]["total"] < want and time.monotonic() - t0 < 300:
            time.sleep(0.02)
        took = time.monotonic() - t0
        rows.append((label, done, "restart_s", took))
        # A new node joins: bytes it received until it holds the replica.
        held = first.stats()["tasks"]["total"]
        joiner = Node(a.node, root, "r4", [f"127.0.0.1:{first.udp}"], a.keep_ms)
        joiner.start()
        nodes.append(joiner)
        deadline = time.monotonic() + 300
        while joiner.stats()["tasks"]["total"] < held and time.monotonic() < deadline:
            time.sleep(0.2)
        # Then 3 s more: heartbeats and the rest of a transfer still coming.
        time.sleep(3)
        got = joiner.stats()["wire"]["bytes_received"]
        rows.append((label, done, "join_bytes", got))
        print(f"{label}: a node killed and restarted holds the replica again after {took:.2f} s; a joining node received "
              f"{got / 2**20:.2f} MiB to hold {held} tasks")
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(root, ignore_errors=True)
    if a.csv:
        new = not os.path.exists(a.csv)
        with open(a.csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["label", "tasks", "metric", "value"])
            w.writerows(rows)

if __name__ == "__main__":
    main()
