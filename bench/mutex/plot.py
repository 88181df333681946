#!/usr/bin/python3
"""Draws messages per critical-section entry against N (log-log), one panel
per workload, every algorithm measured (solid) beside the figure of seed 001
(dashed); below, the virtual wait per entry.

    /usr/bin/python3 bench/mutex/plot.py results.csv mutex.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on a build machine
import matplotlib.pyplot as plt


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py RESULTS.csv OUT.png")
    rows = defaultdict(list)  # (workload, algorithm) -> [(n, msg/entry, seed, wait)]
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["workload"], r["algorithm"])].append(
                (int(r["n"]), float(r["messages_per_entry"]), float(r["seed_value"]),
                 float(r["mean_wait_ms"])))
    workloads = sorted({k[0] for k in rows})
    algorithms = sorted({k[1] for k in rows})
    fig, grid = plt.subplots(2, len(workloads), figsize=(6 * len(workloads), 9),
                             squeeze=False)
    for col, w in enumerate(workloads):
        top, bottom = grid[0][col], grid[1][col]
        for i, a in enumerate(algorithms):
            data = sorted(rows[(w, a)])
            if not data:
                continue
            ns = [d[0] for d in data]
            top.plot(ns, [max(d[1], 0.1) for d in data], "o-", color=f"C{i}", label=a)
            top.plot(ns, [d[2] for d in data], "--", color=f"C{i}", alpha=0.6,
                     label=f"{a} (seed 001)")
            bottom.plot(ns, [max(d[3], 0.1) for d in data], "o-", color=f"C{i}", label=a)
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("nodes")
            ax.grid(True, which="both", alpha=0.3)
        top.set_title(f"messages per entry ({w} workload)")
        bottom.set_title(f"virtual wait per entry, ms ({w} workload)")
        top.legend(fontsize=7)
        bottom.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
