#!/usr/bin/python3
"""Plot speedup vs cluster size from bench/scaling/results.csv.

Usage: plot.py RESULTS.csv OUT.png
Draws the measured speedup (against N=1), the ideal line (speedup = N) and
the 90% / 85% efficiency targets.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["speedup"]]
    if not rows:
        sys.exit("plot.py: no rows with a speedup (was N=1 measured?)")
    n = [int(r["nodes"]) for r in rows]
    sp = [float(r["speedup"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(n, n, "k--", label="ideal (speedup = N)")
    ax.plot(n, [0.9 * x for x in n], ":", color="tab:green", label="90% efficiency")
    ax.plot(n, [0.85 * x for x in n], ":", color="tab:orange", label="85% efficiency")
    ax.plot(n, sp, "o-", color="tab:blue", label="measured")
    for x, y, r in zip(n, sp, rows):
        ax.annotate(f"{float(r['efficiency']) * 100:.0f}%", (x, y),
                    textcoords="offset points", xytext=(6, -12), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(n)
    ax.set_xticklabels([str(x) for x in n])
    ax.set_yticks(n)
    ax.set_yticklabels([str(x) for x in n])
    ax.set_xlabel("single-slot dice-node processes (N)")
    ax.set_ylabel("speedup vs N=1")
    t = rows[0]
    ax.set_title(f"DiCE scaling: {t['tasks']} sleep tasks of {t['task_ms']} ms")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
