#!/usr/bin/env python3
"""Three nodes (as retention.py starts them, retention 2 s) run TASKS no-op
tasks in waves of 2,000 at the first node; then, idle for --settle-s,
each node's RSS and the CPU it spent while idle. What a node keeps and
burns after a burst, in a few minutes instead of retention.py's run.
Usage: idle_probe.py --node BUILD/apps/dice-node/dice-node [--tasks 100000]
                     [--node-args "--http-threads 4"]"""
import argparse, os, shutil, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import retention as R

def cpu_ticks(node):
    fields = open(f"/proc/{node.proc.pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--node", required=True)
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--settle-s", type=float, default=35)
    ap.add_argument("--node-args", default="", help="more dice-node options, for every node")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="dice-idle-")
    nodes = []
    try:
        first = R.Node(a.node, root, "r1", [], 2000)
        first.args += a.node_args.split()
        first.start()
        nodes.append(first)
        for name in ("r2", "r3"):
            n = R.Node(a.node, root, name, [f"127.0.0.1:{first.udp}"], 2000)
            n.args += a.node_args.split()
            n.start()
            nodes.append(n)
        time.sleep(1.5)
        t0 = time.monotonic()
        R.run_tasks(first, a.tasks)
        took = time.monotonic() - t0
        hz = os.sysconf("SC_CLK_TCK")
        before = [cpu_ticks(n) for n in nodes]
        time.sleep(a.settle_s)
        idle = [(cpu_ticks(n) - b) / hz / a.settle_s * 100 for n, b in zip(nodes, before)]
        rss = [n.rss_kib() / 1024 for n in nodes]
        print(f"{a.tasks} tasks in {took:.0f} s; after {a.settle_s:.0f} s idle: RSS MiB "
              + " / ".join(f"{x:.0f}" for x in rss) + ", CPU % " + " / ".join(f"{x:.1f}" for x in idle))
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(root, ignore_errors=True)

if __name__ == "__main__":
    main()
