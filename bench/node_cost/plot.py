#!/usr/bin/python3
"""Plot bench/node_cost/results.csv: every datagram one node sends and
receives per task against N (the mean over the nodes), for each way of
sending, and the busiest node's sends.

Usage: plot.py RESULTS.csv OUT.png
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402

LABELS = {"direct": "direct", "multicast": "multicast group",
          "relayed": "super-peers (auto)", "every": "direct, every holder resends events"}


def main():
    src, out = plotting.args("plot.py RESULTS.csv OUT.png", 2)
    rows = plotting.rows(src)
    modes = [m for m in LABELS if any(r["mode"] == m for r in rows)]
    fig, axes = plotting.panels(3)
    panels = (("node_sent_per_task", "datagrams a node sends per task (mean)"),
              ("node_received_per_task", "datagrams a node receives per task (mean)"),
              ("busiest_node_sent_per_task", "datagrams the busiest node sends per task"))
    for ax, (column, title) in zip(axes, panels):
        for mode in modes:
            pts = {}
            for r in rows:
                if r["mode"] == mode:
                    pts.setdefault(int(r["nodes"]), []).append(float(r[column]))
            xs = sorted(pts)
            ax.plot(xs, [sum(pts[x]) / len(pts[x]) for x in xs], "o-", label=LABELS[mode])
        plotting.finish_axes(ax, title, "nodes (N)", "datagrams per task (log)", log2_x=True)
        ax.set_yscale("log")  # a super-peer's load is far above a member's
        ax.set_ylim(bottom=1)
    plotting.save(fig, out, "One node's traffic per task against N (dice-sim, 20% loss)")


main()
