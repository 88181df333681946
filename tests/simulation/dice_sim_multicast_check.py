#!/usr/bin/env python3
"""Runs dice-sim twice with the given arguments, sending direct and then
with --multicast, and checks what an operator choosing a multicast group
expects: both runs converge with every task DONE and no invariant broken,
and a node sends less than half as many datagrams per task through the
group as it sends direct (one datagram per broadcast instead of N-1)."""
import json
import subprocess
import sys


def run(cmd):
    out = subprocess.run(cmd + ["--json"], capture_output=True, text=True,
                         timeout=600)
    lines = out.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"{' '.join(cmd)}: no output; exit {out.returncode}; "
                 f"stderr: {out.stderr}")
    report = json.loads(lines[-1])
    problems = []
    if out.returncode != 0:
        problems.append(f"exit status {out.returncode}")
    if report.get("converged") is not True:
        problems.append("not converged")
    if report.get("done") != report.get("tasks"):
        problems.append(f"done {report.get('done')} of {report.get('tasks')}")
    if report.get("violations"):
        problems.append(f"violations: {report['violations'][:3]}")
    if problems:
        sys.exit(f"FAILED (seed {report.get('seed')}, {' '.join(cmd[1:])}): "
                 + "; ".join(problems))
    return report


def main():
    cmd = sys.argv[1:]
    direct = run(cmd)
    group = run(cmd + ["--multicast"])
    sent_direct = direct["node_sent_per_task"]
    sent_group = group["node_sent_per_task"]
    print(f"datagrams a node sent per task: direct {sent_direct:.2f}, "
          f"multicast {sent_group:.2f}; received: direct "
          f"{direct['node_received_per_task']:.2f}, multicast "
          f"{group['node_received_per_task']:.2f}")
    if not sent_group < sent_direct / 2:
        sys.exit(f"FAILED (seed {group.get('seed')}): multicast sent "
                 f"{sent_group:.2f} datagrams per task per node, direct "
                 f"{sent_direct:.2f}")


main()
