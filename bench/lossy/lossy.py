#!/usr/bin/env python3
"""Duplicate executions over a lossy network, with real dice-node processes.

Starts NODES nodes on 127.0.0.1, each behind its own UDP proxy: a node
listens on its real port and advertises its proxy's port, so every datagram
any peer sends it crosses the proxy, which drops LOSS of them, sends DUP of
them twice and holds REORDER of them back 1-20 ms (so later ones overtake
them). The proxy forwards a datagram from node j to node i from j's proxy
socket, so node i sees the address node j advertises.

Then submits TASKS `sleep` tasks of MS ms, one POST /tasks at a time to the
nodes in turn, waits until every node holds them all done, and reports the
executions begun on all nodes (beyond one per task: a duplicate), whether
the replicas agree on every task's state and node, and what the proxy did.
Every process it starts is stopped by its pid.
"""
import argparse, csv, heapq, os, random, selectors, signal, socket
import subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backlog"))
from backlog import free_port, request  # noqa: E402 (the same HTTP and port helpers)


class Proxy(threading.Thread):
    """One socket per node at its advertised port; see the module's text."""

    def __init__(self, real_ports, loss, dup, reorder, seed):
        super().__init__(daemon=True)
        self.real = real_ports
        self.by_real = {p: i for i, p in enumerate(real_ports)}
        self.socks = []
        for _ in real_ports:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            s.setblocking(False)
            self.socks.append(s)
        self.ports = [s.getsockname()[1] for s in self.socks]
        self.loss, self.dup, self.reorder = loss, dup, reorder
        self.rng = random.Random(seed)
        self.held = []  # (due, seq, from_index, to_port, data)
        self.seq = 0
        self.counts = {"received": 0, "dropped": 0, "duplicated": 0, "delayed": 0}
        self.stop = threading.Event()

    def forward(self, src, dst_port, data):
        try:
            self.socks[src].sendto(data, ("127.0.0.1", dst_port))
        except OSError:
            pass

    def run(self):
        sel = selectors.DefaultSelector()
        for i, s in enumerate(self.socks):
            sel.register(s, selectors.EVENT_READ, i)
        while not self.stop.is_set():
            now = time.monotonic()
            while self.held and self.held[0][0] <= now:
                _, _, src, dst, data = heapq.heappop(self.held)
                self.forward(src, dst, data)
            wait = 0.05 if not self.held else max(0.0, self.held[0][0] - now)
            for key, _ in sel.select(timeout=min(wait, 0.05)):
                to = key.data
                while True:
                    try:
                        data, (_, port) = key.fileobj.recvfrom(65536)
                    except BlockingIOError:
                        break
                    self.counts["received"] += 1
                    # From node j (its real port): send as j's proxy socket.
                    src = self.by_real.get(port, to)
                    if self.rng.random() < self.loss:
                        self.counts["dropped"] += 1
                        continue
                    copies = 2 if self.rng.random() < self.dup else 1
                    self.counts["duplicated"] += copies - 1
                    for _ in range(copies):
                        if self.rng.random() < self.reorder:
                            self.counts["delayed"] += 1
                            self.seq += 1
                            heapq.heappush(self.held, (time.monotonic()
                                                       + self.rng.uniform(0.001, 0.020),
                                                       self.seq, src, self.real[to], data))
                        else:
                            self.forward(src, self.real[to], data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--nodes", type=int, default=5)
    ap.add_argument("--tasks", type=int, default=264)
    ap.add_argument("--ms", type=int, default=50, help="each task's sleep")
    ap.add_argument("--loss", type=float, default=0.2)
    ap.add_argument("--dup", type=float, default=0.05)
    ap.add_argument("--reorder", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--csv", default="")
    ap.add_argument("--label", default="")
    ap.add_argument("node_args", nargs="*", help="extra dice-node arguments")
    a = ap.parse_args()
    binary = os.path.join(a.build, "apps/dice-node/dice-node")
    logs = tempfile.mkdtemp(prefix="dice-lossy-")
    real = [free_port(socket.SOCK_DGRAM) for _ in range(a.nodes)]
    http = [free_port(socket.SOCK_STREAM) for _ in range(a.nodes)]
    proxy = Proxy(real, a.loss, a.dup, a.reorder, a.seed)
    proxy.start()
    procs = []
    try:
        for i in range(a.nodes):
            args = [binary, "--id", f"l-{i + 1}", "--listen", f"127.0.0.1:{real[i]}",
                    "--advertise", f"127.0.0.1:{proxy.ports[i]}",
                    "--http", f"127.0.0.1:{http[i]}", "--data-dir", "none",
                    "--slots", "1", "--log-level", "warn"]
            if i:
                args += ["--peer", f"127.0.0.1:{proxy.ports[0]}"]
            log = open(os.path.join(logs, f"l-{i + 1}.log"), "w")
            procs.append(subprocess.Popen(args + a.node_args, stdout=log, stderr=log))
        urls = [f"http://127.0.0.1:{p}" for p in http]
        deadline = time.time() + 30
        while time.time() < deadline:
            formed = 0
            for u in urls:
                s, b = request(u + "/nodes", timeout=1)
                formed += s == 200 and sum(n["state"] == "alive" for n in b["nodes"]) == a.nodes
            if formed == a.nodes:
                break
            time.sleep(0.2)
        else:
            sys.exit("lossy.py: the cluster did not form; logs in " + logs)

        start = time.time()
        ids, refused = [], 0
        for k in range(a.tasks):
            s, b = request(urls[k % a.nodes] + "/tasks",
                           {"kind": "sleep", "payload": str(a.ms)}, timeout=30)
            if s in (201, 202):
                ids += b.get("ids", [])
            else:
                refused += 1
        # Every node holds every task done.
        done_all = False
        while time.time() - start < a.timeout:
            done = [request(u + "/stats", timeout=5)[1].get("tasks", {}).get("done", 0)
                    for u in urls]
            if all(d >= len(ids) for d in done):
                done_all = True
                break
            time.sleep(0.5)
        makespan = time.time() - start
        executions = 0
        for u in urls:
            s, b = request(u + "/stats", timeout=10)
            executions += b.get("executions", {}).get("started", 0) if s == 200 else 0
        # The replicas agree: every task's state and node alike everywhere.
        views = []
        for u in urls:
            s, b = request(u + "/tasks?limit=10000", timeout=30)
            views.append({t["id"]: (t["state"], t.get("node")) for t in b.get("tasks", [])})
        identical = all(v == views[0] for v in views[1:]) and len(views[0]) == len(ids)
        row = {
            "label": a.label, "nodes": a.nodes, "tasks": len(ids), "refused": refused,
            "loss": a.loss, "dup": a.dup, "reorder": a.reorder, "seed": a.seed,
            "all_done_everywhere": done_all, "replicas_identical": identical,
            "makespan_s": round(makespan, 2), "executions": executions,
            "duplicates": executions - len(ids),
            "duplicates_pct": round(100.0 * (executions - len(ids)) / max(len(ids), 1), 2),
            **{"datagrams_" + k: v for k, v in proxy.counts.items()},
        }
        width = max(len(k) for k in row)
        for k, v in row.items():
            print(f"{k:<{width}}  {v}")
        if a.csv:
            exists = os.path.exists(a.csv)
            with open(a.csv, "a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(row))
                if not exists:
                    w.writeheader()
                w.writerow(row)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        proxy.stop.set()


if __name__ == "__main__":
    main()
