#!/usr/bin/python3
"""Plot bench/node_traffic/results.csv: the queue datagrams a node sends
per task against N, this build beside the baseline, per loss rate (the
mean over seeds), and duplicate executions.

Usage: plot.py RESULTS.csv OUT.png
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402


def series(rows, build, loss, value):
    by_n = {}
    for r in rows:
        if r["build"] == build and r["loss"] == loss:
            by_n.setdefault(int(r["nodes"]), []).append(value(r))
    ns = sorted(by_n)
    return ns, [statistics.mean(by_n[n]) for n in ns]


def main():
    src, out = plotting.args("plot.py RESULTS.csv OUT.png", 2)
    rows = plotting.rows(src)
    losses = sorted({r["loss"] for r in rows}, key=float)
    builds = [b for b in ("this", "baseline") if any(r["build"] == b for r in rows)]
    fig, (traffic, dups) = plotting.panels(2)
    for loss in losses:
        for build, style in zip(builds, ("o-", "s--")):
            traffic.plot(*series(rows, build, loss,
                                 lambda r: float(r["node_datagrams_per_task"])),
                         style, label=f"{build}, loss {float(loss):.0%}")
            dups.plot(*series(rows, build, loss,
                              lambda r: 100 * int(r["duplicates"]) / int(r["tasks"])),
                      style, label=f"{build}, loss {float(loss):.0%}")
    plotting.finish_axes(traffic, "queue datagrams a node sends per task (mean)",
                         "nodes (N)", "datagrams per task", log2_x=True)
    plotting.finish_axes(dups, "duplicate executions", "nodes (N)", "% of tasks",
                         log2_x=True)
    plotting.save(fig, out, "dice-sim, a node's traffic per task")


if __name__ == "__main__":
    main()
