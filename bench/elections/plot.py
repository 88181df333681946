#!/usr/bin/python3
"""Draws messages per election against N (log-log), one panel per algorithm,
measured (solid) beside the theory of seed 002 (dashed); below them the
virtual time per election against N.

    /usr/bin/python3 bench/elections/plot.py elections.csv elections.png
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
    series = defaultdict(list)  # (algorithm, arrangement, theory) -> rows
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            key = (row["algorithm"], row["arrangement"], row["theory"])
            series[key].append(
                (int(row["n"]), int(row["messages"]), float(row["theory_value"]),
                 float(row["virtual_ms"]))
            )
    algorithms = sorted({k[0] for k in series})
    fig, grid = plt.subplots(2, len(algorithms), figsize=(5 * len(algorithms), 8.5),
                             squeeze=False)
    axes, time_axes = grid[0], grid[1]
    for ax, algorithm in zip(time_axes, algorithms):
        for i, (key, rows) in enumerate(sorted(series.items())):
            if key[0] != algorithm:
                continue
            rows.sort()
            ax.plot([r[0] for r in rows], [max(r[3], 0.5) for r in rows], "o-",
                    color=f"C{i % 10}", label=key[1])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{algorithm}: time")
        ax.set_xlabel("nodes N")
        ax.set_ylabel("virtual ms per election (1 ms per hop)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax, algorithm in zip(axes, algorithms):
        for i, (key, rows) in enumerate(sorted(series.items())):
            if key[0] != algorithm:
                continue
            rows.sort()
            ns = [r[0] for r in rows]
            color = f"C{i % 10}"
            ax.plot(ns, [r[1] for r in rows], "o-", color=color, label=key[1])
            ax.plot(ns, [r[2] for r in rows], "--", color=color, alpha=0.6,
                    label=f"theory {key[2]}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(algorithm)
        ax.set_xlabel("nodes N")
        ax.set_ylabel("messages per election")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
