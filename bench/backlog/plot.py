#!/usr/bin/python3
"""Draws bench/backlog's recorded results, one bar per build (its label):
throughput of the 100,000-task backlog, and GET /stats latency while it
drains (p50, p99, max; log scale).

    /usr/bin/python3 bench/backlog/plot.py bench/backlog/results.csv bench/backlog/backlog.png
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402


def main():
    source, out = plotting.args("plot.py RESULTS.csv OUT.png", 2)
    data = plotting.rows(source)
    labels = [f'{r["label"]}\n{int(r["done"]):,} done' for r in data]
    fig, (rate, stats) = plotting.panels(2)
    bars = rate.bar(labels, [float(r["tasks_per_s"]) for r in data])
    plotting.label_bars(rate, bars)
    rate.set_ylabel("tasks/s (first submit to last done)")
    rate.set_title("10 x 10,000 tasks submitted to node 1 of 3")
    rate.grid(axis="y", alpha=0.3)
    width = 0.27
    for k, (column, name) in enumerate([("stats_p50_ms", "p50"),
                                        ("stats_p99_ms", "p99"),
                                        ("stats_max_ms", "max")]):
        xs = [i + (k - 1) * width for i in range(len(data))]
        stats.bar(xs, [float(r[column]) for r in data], width, label=name)
    stats.set_xticks(range(len(data)))
    stats.set_xticklabels(labels)
    stats.set_yscale("log")
    stats.axhline(100, color="k", linestyle="--", linewidth=1, label="goal 100 ms")
    stats.set_ylabel("GET /stats ms (5,000: timed out)")
    stats.set_title("/stats while the backlog drains")
    stats.legend(fontsize=8)
    stats.grid(axis="y", alpha=0.3)
    plotting.save(fig, out)


if __name__ == "__main__":
    main()
