#!/usr/bin/python3
"""Draws bench/journal's recorded results, the median over rounds of each
mode (batch: as shipped; always: fsync before every answer; memory: no
journal), one panel per metric.

    /usr/bin/python3 bench/journal/plot.py bench/journal/results bench/journal/journal.png
"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402

MODES = ["batch", "always", "memory"]
PANELS = [  # (metric, title, format)
    ("tasks_per_s", "no-op throughput, tasks/s", "{:.0f}"),
    ("cpu_s_per_1000", "CPU s per 1,000 tasks", "{:.2f}"),
    ("p50_ms", "submit to result p50, ms", "{:.1f}"),
    ("p99_ms", "submit to result p99, ms", "{:.1f}"),
    ("rss_mib", "RSS of the 4 nodes, MiB", "{:.0f}"),
]


def main():
    folder, out = plotting.args("plot.py RESULTS_DIR OUT.png", 2)
    data = plotting.rows(*sorted(glob.glob(os.path.join(folder, "*.csv"))))
    median = plotting.medians(data, lambda r: (r["system"], r["metric"]))
    fig, axes = plotting.panels(len(PANELS), width=3.2)
    for ax, (metric, title, fmt) in zip(axes, PANELS):
        bars = ax.bar(MODES, [median[(m, metric)] for m in MODES],
                      color=["C0", "C3", "C2"])
        plotting.label_bars(ax, bars, fmt)
        ax.set_title(title, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    plotting.save(fig, out, "What the journal costs (median of rounds)")


if __name__ == "__main__":
    main()
