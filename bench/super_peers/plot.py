#!/usr/bin/python3
"""Plot bench/super_peers/results.csv: per-node queue datagrams per task
against N, direct (--super-peers off) beside relayed (auto: a member, the
median node, and a super-peer, the busiest), and duplicate executions.

Usage: plot.py RESULTS.csv OUT.png
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402


def main():
    src, out = plotting.args("plot.py RESULTS.csv OUT.png", 2)
    rows = plotting.rows(src)
    losses = sorted({r["loss"] for r in rows}, key=float)
    fig, axes = plotting.panels(len(losses) + 1)
    for ax, loss in zip(axes, losses):
        def series(sp, column):
            pts = sorted((int(r["nodes"]), float(r[column])) for r in rows
                         if r["loss"] == loss and r["super_peers"] == sp)
            return [p[0] for p in pts], [p[1] for p in pts]
        ax.plot(*series("off", "node_datagrams_per_task"), "o-", label="direct: every node (mean)")
        ax.plot(*series("auto", "median_node_datagrams_per_task"), "s-", label="relayed: a member (median node)")
        ax.plot(*series("auto", "busiest_node_datagrams_per_task"), "^--", label="relayed: busiest super-peer")
        ax.plot(*series("auto", "node_datagrams_per_task"), "x:", label="relayed: mean over nodes")
        plotting.finish_axes(ax, f"queue datagrams a node sends per task, loss {float(loss):.0%}",
                             "nodes (N)", "datagrams per task (log)", log2_x=True)
        ax.set_yscale("log")  # a super-peer's load is two orders above a member's
        ax.set_ylim(bottom=0.3)
    ax = axes[-1]
    for loss in losses:
        for sp, style in (("off", "o-"), ("auto", "s--")):
            pts = sorted((int(r["nodes"]), 100 * float(r["duplicate_rate"])) for r in rows
                         if r["loss"] == loss and r["super_peers"] == sp)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                    label=f"{'direct' if sp == 'off' else 'relayed'}, loss {float(loss):.0%}")
    plotting.finish_axes(ax, "duplicate executions", "nodes (N)", "% of tasks", log2_x=True)
    plotting.save(fig, out, "dice-sim, --super-peers off vs auto")


if __name__ == "__main__":
    main()
