#!/usr/bin/env python3
"""dice test beside pytest-xdist on a real test suite (mpmath's, from
Debian's python3-mpmath), and seed 004's table redone in kind.

Part 1: the whole mpmath suite by `pytest -n N` (python3-pytest-xdist) and
by `dice test --wait` on N single-slot tester nodes, N = 1, 2, 4, 8, side
by side, alternating for --rounds rounds (the machine's speed drifts; a
ratio is taken within a round): dice's round 1 is a first run, the later
rounds order modules longest first from the durations remembered.
Part 2: 8 projects submitted at once to N = 2, 4, 8 nodes (each a copy of
the mpmath suite without its two longest files, so no module dominates),
wall time from the first submit to the last report done, and efficiency
against the physical limit: the 8 projects' serial pytest time divided by
min(N, cores).

Every node is started here with --data-dir none and a work dir of its own
and stopped by its pid. Writes results.csv (part,system,nodes,round,metric,
value) in --out and prints tables."""
import argparse
import csv
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

PY = "/usr/bin/python3"
SUITE = "/usr/lib/python3/dist-packages/mpmath/tests"


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(port, path, timeout=5):
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
        return json.loads(r.read())


def make_project(root, name, drop=()):
    dest = os.path.join(root, name)
    shutil.copytree(SUITE, os.path.join(dest, "tests"),
                    ignore=shutil.ignore_patterns("__pycache__", *drop))
    with open(os.path.join(dest, "PROJECT"), "w") as f:
        f.write(name + "\n")  # a distinct blob per project
    return dest


class Cluster:
    def __init__(self, build, root, n):
        self.procs, self.ports = [], []
        seed = None
        for i in range(n):
            udp, http = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
            args = [f"{build}/apps/dice-node/dice-node", "--id", f"b-{i}",
                    "--listen", f"127.0.0.1:{udp}", "--http", f"127.0.0.1:{http}",
                    "--data-dir", "none", "--tester", "--slots", "1",
                    "--tester-work-dir", os.path.join(root, f"work-{n}-{i}"),
                    "--tester-hello-ms", "200", "--log-level", "warn"]
            if seed:
                args += ["--peer", seed]
            else:
                seed = f"127.0.0.1:{udp}"
            log = open(os.path.join(root, f"node-{n}-{i}.log"), "w")
            self.procs.append(subprocess.Popen(args, stdout=log, stderr=log))
            self.ports.append(http)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if all(len([m for m in get(p, "/network")["nodes"] if "http" in m]) == n
                       for p in self.ports):
                    return
            except Exception:
                pass
            time.sleep(0.2)
        raise SystemExit(f"bench: {n} nodes did not find each other")

    def url(self, i=0):
        return f"http://127.0.0.1:{self.ports[i]}"

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def timed(args, cwd=None):
    start = time.monotonic()
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    return time.monotonic() - start, r


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(here, "..", "..", "build"))
    ap.add_argument("--nodes", default="1,2,4,8")
    ap.add_argument("--many-nodes", default="2,4,8")
    ap.add_argument("--out", default=here)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    # A SIGTERM stops the nodes started here too (the finally blocks run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    build = os.path.abspath(args.build)
    cli = f"{build}/apps/dice/dice"
    cores = os.cpu_count()
    root = tempfile.mkdtemp(prefix="dice-bench-tester-")
    os.chmod(root, 0o711)  # the runner (nobody under root) reaches its work dir
    rows = []
    try:
        suite = make_project(root, "mpmath")
        print(f"part 1: mpmath's suite ({len(os.listdir(suite + '/tests'))} files), "
              f"{cores} cores", flush=True)
        for n in [int(x) for x in args.nodes.split(",")]:
            c = Cluster(build, root, n)
            ratios = []
            try:
                for rnd in range(1, args.rounds + 1):
                    secs, r = timed([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                     "-n", str(n), "tests"], cwd=suite)
                    summary = (r.stdout.strip().splitlines()[-1] if r.stdout.strip()
                               else r.stderr[-200:])
                    rows.append(("single", "xdist", n, rnd, "wall_s", round(secs, 2)))
                    print(f"  round {rnd}, pytest -n {n}: {secs:6.1f} s  ({summary})",
                          flush=True)
                    xdist = secs
                    secs, r = timed([cli, "--node", c.url(), "--json", "test", suite,
                                     "--name", "mpmath", "--wait", "--timeout", "600"])
                    rep = json.loads(r.stdout.strip().splitlines()[-1])
                    t = rep["totals"]
                    work = sum(m.get("duration_ms", 0) for m in rep["modules"]) / 1000
                    tasks = len({m["id"] for m in rep["modules"]})
                    rows.append(("single", "dice", n, rnd, "wall_s", round(secs, 2)))
                    rows.append(("single", "dice", n, rnd, "module_s", round(work, 2)))
                    ratios.append(secs / xdist)
                    print(f"  round {rnd}, dice test, {n} node(s): {secs:6.1f} s "
                          f"({secs / xdist:.2f} x xdist; {t['passed']} passed, "
                          f"{t['failed']} failed, {t['skipped']} skipped, "
                          f"{t['errors']} errors; {tasks} tasks, modules {work:.1f} s)",
                          flush=True)
            finally:
                c.stop()
            print(f"  N = {n}: dice / xdist per round {', '.join(f'{x:.2f}' for x in ratios)}"
                  f", median {statistics.median(ratios):.2f}", flush=True)

        print("part 2: 8 projects at once (mpmath without test_functions2.py and "
              "test_calculus.py)", flush=True)
        projects = [make_project(root, f"p{i}", ("test_functions2.py", "test_calculus.py"))
                    for i in range(8)]
        serial, r = timed([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                          cwd=projects[0])
        rows.append(("many", "pytest", 1, 1, "serial_one_s", round(serial, 2)))
        print(f"  one project, plain pytest: {serial:.1f} s", flush=True)
        for n in [int(x) for x in args.many_nodes.split(",") if x and x != "none"]:
            c = Cluster(build, root, n)
            try:
                start = time.monotonic()
                ids = []
                for i, p in enumerate(projects):
                    r = subprocess.run([cli, "--node", c.url(i % n), "--json", "test", p,
                                        "--timeout", "600"], capture_output=True, text=True)
                    ids.append(json.loads(r.stdout.strip().splitlines()[-1])["id"])
                while True:
                    reps = [get(c.ports[0], f"/evaluation/{i}") for i in ids]
                    if all(x["state"] == "done" for x in reps):
                        break
                    time.sleep(0.2)
                secs = time.monotonic() - start
                limit = 8 * serial / min(n, cores)
                passed = sum(x["totals"]["passed"] for x in reps)
                rows.append(("many", "dice", n, 1, "wall_s", round(secs, 2)))
                rows.append(("many", "dice", n, 1, "efficiency", round(limit / secs, 3)))
                print(f"  {n} nodes: {secs:6.1f} s, physical limit {limit:.1f} s, "
                      f"efficiency {limit / secs:.0%} ({passed} tests passed)", flush=True)
            finally:
                c.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["part", "system", "nodes", "round", "metric", "value"])
        w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
