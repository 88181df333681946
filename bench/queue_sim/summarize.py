#!/usr/bin/python3
"""Means per benchmark point from run.sh's CSV: a Markdown table on stdout
(also table.md) and queue_sim.png (duplicates and messages per task against
loss and against cluster size)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METRICS = ["duplicate_rate", "messages_per_task", "running_heartbeats_per_task",
           "bytes_per_task", "makespan_ms", "wall_ms"]


def load(path):
    points = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["sweep"], int(row["nodes"]), int(row["tasks"]),
                   float(row["loss"]))
            points[key].append(row)
    return points


def mean(rows, k):
    return sum(float(r[k]) for r in rows) / len(rows)


def table(points):
    head = ("| sweep | nodes | tasks | loss | seeds | converged | done/tasks "
            "| dup % | queue msgs/task | RUNNING hb/task | KiB/task "
            "| makespan s | wall s |")
    lines = [head, "|" + "|".join(["---"] * 13) + "|"]
    for key in sorted(points, key=lambda k: (k[0], k[1], k[3])):
        rows = points[key]
        sweep, nodes, tasks, loss = key
        ok = sum(r["converged"] == "true" for r in rows)
        done = sum(int(r["done"]) for r in rows)
        total = sum(int(r["tasks"]) for r in rows)
        lines.append(
            f"| {sweep} | {nodes} | {tasks} | {loss:g} | {len(rows)} "
            f"| {ok}/{len(rows)} | {done}/{total} "
            f"| {100 * mean(rows, 'duplicate_rate'):.2f} "
            f"| {mean(rows, 'messages_per_task'):.2f} "
            f"| {mean(rows, 'running_heartbeats_per_task'):.2f} "
            f"| {mean(rows, 'bytes_per_task') / 1024:.1f} "
            f"| {mean(rows, 'makespan_ms') / 1000:.2f} "
            f"| {mean(rows, 'wall_ms') / 1000:.1f} |")
    return "\n".join(lines)


def plot(points, path):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    loss = sorted((k for k in points if k[0] == "loss"), key=lambda k: k[3])
    ax = axes[0]
    xs = [k[3] for k in loss]
    ax.plot(xs, [100 * mean(points[k], "duplicate_rate") for k in loss], "o-",
            label="duplicate executions %")
    ax.plot(xs, [mean(points[k], "messages_per_task") for k in loss], "s-",
            label="queue messages / task")
    ax.set_xlabel("datagram loss (16 nodes, 256 tasks)")
    ax.legend()
    ax.grid(alpha=0.3)
    ax = axes[1]
    for sweep, style in (("nodes-loss0", "-"), ("nodes-loss0.2", "--")):
        keys = sorted((k for k in points if k[0] == sweep), key=lambda k: k[1])
        if not keys:
            continue
        xs = [k[1] for k in keys]
        tag = sweep.replace("nodes-", "")
        ax.plot(xs, [100 * mean(points[k], "duplicate_rate") for k in keys],
                "o" + style, label=f"duplicate % ({tag})")
        ax.plot(xs, [mean(points[k], "messages_per_task") for k in keys],
                "s" + style, label=f"queue msgs / task ({tag})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("nodes (256 tasks)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    path, out = sys.argv[1], sys.argv[2]
    points = load(path)
    text = table(points)
    print(text)
    with open(f"{out}/table.md", "w") as f:
        f.write(text + "\n")
    plot(points, f"{out}/queue_sim.png")


main()
