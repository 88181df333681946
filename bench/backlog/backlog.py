#!/usr/bin/env python3
"""Backlog benchmark: N no-op tasks submitted at once to a 3-node cluster.

Starts the nodes on 127.0.0.1, sends SUBMITS concurrent POST /tasks of
COUNT `echo` tasks each to the first node, and polls that node's GET /stats
every 100 ms (each poll timed, 5 s timeout; a poll that fails counts as
5000 ms) until every accepted task is done there. A submit answered 429
(nothing enqueued) is sent again after a second. Prints one table and
writes a CSV row: the submit answers (201, 202, refused), 429 retries, ids
returned, tasks known to the node, makespan (first submit to the last task
done on node 1), executions begun on all nodes (beyond one per task: a
duplicate) and the /stats latency percentiles.
"""
import argparse, csv, json, os, signal, socket, subprocess, sys, tempfile
import threading, time, urllib.error, urllib.request


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(url, body=None, timeout=5.0):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST" if data else "GET",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read())
        except ValueError:
            return e.code, {}
    except (OSError, ValueError):
        return 0, {}


def percentile(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--submits", type=int, default=10)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--csv", default="")
    ap.add_argument("--label", default="")
    ap.add_argument("node_args", nargs="*", help="extra dice-node arguments")
    a = ap.parse_args()
    binary = os.path.join(a.build, "apps/dice-node/dice-node")
    logs = tempfile.mkdtemp(prefix="dice-backlog-")
    nodes, procs = [], []
    for i in range(3):
        udp, http = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
        args = [binary, "--id", f"b-{i + 1}", "--listen", f"127.0.0.1:{udp}",
                "--http", f"127.0.0.1:{http}", "--log-level", "warn",
                # A fresh journal each run: by default a node keeps one
                # under /var/lib/dice (or ~/.local/state/dice) by its id,
                # and the next run would start with this run's tasks.
                "--data-dir", os.path.join(logs, f"b-{i + 1}.data")]
        if nodes:
            args += ["--peer", f"127.0.0.1:{nodes[0][0]}"]
        args += a.node_args
        log = open(os.path.join(logs, f"b-{i + 1}.log"), "w")
        procs.append(subprocess.Popen(args, stdout=log, stderr=log))
        nodes.append((udp, http))
    base = f"http://127.0.0.1:{nodes[0][1]}"
    try:
        deadline = time.time() + 10
        while time.time() < deadline:
            alive = 0
            for _, http in nodes:
                s, b = request(f"http://127.0.0.1:{http}/nodes", timeout=1)
                alive += s == 200 and sum(n["state"] == "alive" for n in b["nodes"]) == 3
            if alive == 3:
                break
            time.sleep(0.2)
        else:
            sys.exit("backlog.py: the cluster did not form; logs in " + logs)

        answers, stats_ms, retries, stop = [], [], [], threading.Event()

        def submit():
            # As a client should: a 429 enqueued nothing, so wait as told
            # (Retry-After: 1) and submit again; bounded.
            t = time.time()
            for _ in range(600):
                s, b = request(base + "/tasks", {"kind": "echo", "payload": "",
                                                 "count": a.count}, timeout=600)
                if s != 429:
                    break
                retries.append(1)
                time.sleep(1)
            answers.append((s, len(b.get("ids", [])), time.time() - t,
                            b.get("error", "")))

        def poll():
            while not stop.is_set():
                t = time.time()
                s, _ = request(base + "/stats", timeout=5)
                stats_ms.append((time.time() - t) * 1000 if s == 200 else 5000.0)
                stop.wait(0.1)

        poller = threading.Thread(target=poll)
        poller.start()
        start = time.time()
        threads = [threading.Thread(target=submit) for _ in range(a.submits)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        accepted = sum(n for s, n, _, _ in answers if s in (201, 202))
        done = 0
        while time.time() - start < a.timeout:
            s, b = request(base + "/stats", timeout=5)
            if s == 200:
                done = b["tasks"]["done"]
                if done >= accepted:
                    break
            time.sleep(0.2)
        makespan = time.time() - start
        stop.set()
        poller.join()
        _, final = request(base + "/stats", timeout=10)
        tasks = final.get("tasks", {}) if isinstance(final, dict) else {}
        # Executions begun on every node: beyond one per task, a task ran
        # twice (a rival claim won after the loser had started).
        executions = 0
        for _, http in nodes:
            s, b = request(f"http://127.0.0.1:{http}/stats", timeout=10)
            executions += b.get("executions", {}).get("started", 0) if s == 200 else 0
        row = {
            "label": a.label, "submits": a.submits, "count": a.count,
            "201": sum(s == 201 for s, *_ in answers),
            "202": sum(s == 202 for s, *_ in answers),
            "refused": sum(s not in (201, 202) for s, *_ in answers),
            "retried_429": len(retries),
            "ids": accepted, "known": tasks.get("total", -1),
            "done": done, "makespan_s": round(makespan, 2),
            "tasks_per_s": round(done / makespan, 1),
            "executions": executions,
            "duplicates_pct": round(100.0 * (executions - done) / max(done, 1), 2),
            "stats_polls": len(stats_ms),
            "stats_p50_ms": round(percentile(stats_ms, 50), 1),
            "stats_p99_ms": round(percentile(stats_ms, 99), 1),
            "stats_max_ms": round(max(stats_ms) if stats_ms else float("nan"), 1),
        }
        for s, n, secs, err in sorted(answers):
            print(f"  submit: {s} ids={n} in {secs:.2f}s {err}")
        width = max(len(k) for k in row)
        for k, v in row.items():
            print(f"{k:<{width}}  {v}")
        if a.csv:
            # Rows of older runs keep their columns; a new column is added
            # to the header (empty for them).
            rows, fields = [], list(row)
            if os.path.exists(a.csv):
                with open(a.csv, newline="") as f:
                    r = csv.DictReader(f)
                    rows = list(r)
                    fields = list(r.fieldnames or []) + [k for k in row if k not in (r.fieldnames or [])]
            with open(a.csv, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=fields)
                w.writeheader()
                w.writerows(rows + [row])
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


if __name__ == "__main__":
    main()
