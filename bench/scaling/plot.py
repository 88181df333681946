#!/usr/bin/python3
"""Plot speedup vs cluster size from bench/scaling/results.csv.

Usage: plot.py RESULTS.csv OUT.png
Draws the measured speedup (against N=1; with several rounds per size the
median and the range), the ideal line (speedup = N) and the 90% / 85%
efficiency targets.
"""
import csv
import statistics
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
    # Several rounds per size: the median, with the range as an error bar.
    by_n = {}
    for r in rows:
        by_n.setdefault(int(r["nodes"]), []).append(r)
    n = sorted(by_n)
    sp, lo, hi, eff = [], [], [], []
    for x in n:
        s = sorted(float(r["speedup"]) for r in by_n[x])
        e = sorted(float(r["efficiency"]) for r in by_n[x])
        sp.append(statistics.median(s))
        lo.append(sp[-1] - s[0])
        hi.append(s[-1] - sp[-1])
        eff.append(statistics.median(e))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(n, n, "k--", label="ideal (speedup = N)")
    ax.plot(n, [0.9 * x for x in n], ":", color="tab:green", label="90% efficiency")
    ax.plot(n, [0.85 * x for x in n], ":", color="tab:orange", label="85% efficiency")
    rounds = max(len(v) for v in by_n.values())
    label = "measured" if rounds == 1 else f"measured (median, range of {rounds} rounds)"
    ax.errorbar(n, sp, yerr=[lo, hi], fmt="o-", color="tab:blue", capsize=3,
                label=label)
    for x, y, e in zip(n, sp, eff):
        ax.annotate(f"{e * 100:.0f}%", (x, y),
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
