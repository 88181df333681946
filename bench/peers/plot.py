#!/usr/bin/python3
"""Bar charts of bench/peers/results.csv: one panel per workload metric, one
bar per system (median over rounds, the range as an error bar).

Usage: plot.py RESULTS.csv OUT.png
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["dice", "celery", "rq", "beanstalkd"]
PANELS = [  # (title, log scale, [(workload, metric, label)]); the systems differ
    # by orders of magnitude in throughput, latency and CPU, hence log scales
    ("throughput (tasks/s, higher is better)", True, [("throughput", "tasks_per_s", "")]),
    ("latency (ms, lower is better)", True,
     [("latency", "p50_ms", "p50"), ("latency", "p99_ms", "p99")]),
    ("makespan, share of the limit (higher is better)", False,
     [("makespan", f"share_{w}w", f"{w} workers") for w in (1, 4, 8)]),
    ("CPU s per 1,000 no-op tasks (lower is better)", True, [("cpu", "cpu_s_per_1000", "")]),
    ("RSS of the 4-worker system (MiB, lower is better)", False, [("rss", "rss_mib", "")]),
]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    vals = {}
    for r in csv.DictReader(open(sys.argv[1])):
        vals.setdefault((r["system"], r["workload"], r["metric"]), []).append(float(r["value"]))
    systems = [s for s in ORDER if any(k[0] == s for k in vals)]
    fig, axes = plt.subplots(1, len(PANELS), figsize=(4 * len(PANELS), 4))
    for ax, (title, log, series) in zip(axes, PANELS):
        width = 0.8 / len(series)
        for j, (wl, metric, label) in enumerate(series):
            xs, med, lo, hi = [], [], [], []
            for i, s in enumerate(systems):
                v = vals.get((s, wl, metric))
                if not v:
                    continue
                m = statistics.median(v)
                xs.append(i + (j - (len(series) - 1) / 2) * width)
                med.append(m)
                lo.append(m - min(v))
                hi.append(max(v) - m)
            bars = ax.bar(xs, med, width, yerr=[lo, hi], capsize=2, label=label or None)
            # Values on the bars: log scales make bar heights hard to read.
            ax.bar_label(bars, [f"{m:.0f}" if m >= 100 else f"{m:.2g}" for m in med], fontsize=7)
        ax.set_xticks(range(len(systems)))
        ax.set_xticklabels(systems)
        ax.set_title(title, fontsize=9)
        if log:
            ax.set_yscale("log")
        ax.grid(True, axis="y", alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7, loc="upper center", ncol=len(series))
        if not log:
            ax.set_ylim(0, ax.get_ylim()[1] * 1.15)  # room for the labels and legend
    rounds = max(len(v) for v in vals.values())
    what = "one round" if rounds == 1 else f"median, range of {rounds} rounds"
    fig.suptitle(f"DiCE and peers, 4 single-slot workers on 127.0.0.1 ({what})")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
