#!/usr/bin/python3
"""Draws one dice-sim run's timeline (dice-sim --timeline FILE.csv): on top,
the tasks each node finished over virtual time, stacked (the top edge is
the tasks done); below, claims lost and duplicate executions so far, with
the nodes up (crashes show as dips).

    build/apps/dice-sim/dice-sim --nodes 8 --tasks 400 --loss 0.1 --crash 2 \\
        --timeline /tmp/timeline.csv
    /usr/bin/python3 bench/queue_sim/timeline.py /tmp/timeline.csv timeline.png
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402

FIXED = ["t_ms", "done", "claims_lost", "duplicates", "up"]


def main():
    source, out = plotting.args("timeline.py TIMELINE.csv OUT.png", 2)
    data = plotting.rows(source)
    if not data:
        sys.exit(f"{source}: no samples")
    nodes = [c for c in data[0] if c not in FIXED]
    t = [int(r["t_ms"]) / 1000 for r in data]
    fig = plotting.plt.figure(figsize=(10, 7))
    work = fig.add_subplot(2, 1, 1)
    work.stackplot(t, [[int(r[n]) for r in data] for n in nodes], labels=nodes)
    work.set_ylabel("tasks finished (stacked by node)")
    work.set_title(f"dice-sim: {len(nodes)} nodes, {data[-1]['done']} tasks done")
    work.legend(fontsize=7, loc="upper left", ncol=max(1, len(nodes) // 8))
    work.grid(alpha=0.3)
    faults = fig.add_subplot(2, 1, 2, sharex=work)
    faults.plot(t, [int(r["claims_lost"]) for r in data], label="claims lost")
    faults.plot(t, [int(r["duplicates"]) for r in data], label="duplicate executions")
    faults.set_ylabel("so far")
    faults.set_xlabel("virtual time, s")
    faults.grid(alpha=0.3)
    up = faults.twinx()
    up.plot(t, [int(r["up"]) for r in data], "k:", linewidth=1, label="nodes up")
    up.set_ylabel("nodes up")
    up.set_ylim(0, len(nodes) + 1)
    lines = faults.get_legend_handles_labels()
    more = up.get_legend_handles_labels()
    faults.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8, loc="upper left")
    plotting.save(fig, out)


if __name__ == "__main__":
    main()
