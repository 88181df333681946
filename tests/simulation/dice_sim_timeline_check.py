#!/usr/bin/env python3
"""Runs dice-sim --timeline (plus --json) and checks the CSV as a user
plotting it would: the expected columns, one per node; time moving forward;
counts that never go back; and, at the end, per-node counts that sum to the
tasks done that the report gives, and the report's duplicates.

    dice_sim_timeline_check.py OUT.csv DICE_SIM [dice-sim options...]
"""
import csv
import json
import subprocess
import sys


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    run = subprocess.run(cmd + ["--json", "--timeline", out], capture_output=True,
                         text=True, timeout=600)
    lines = run.stdout.strip().splitlines()
    if run.returncode != 0 or not lines:
        sys.exit(f"dice-sim exit {run.returncode}: {run.stdout} {run.stderr}")
    report = json.loads(lines[-1])
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], [[int(v) for v in r] for r in rows[1:]]
    nodes = [f"n{i + 1}" for i in range(report["nodes"])]
    expected = ["t_ms", "done", "claims_lost", "duplicates", "up"] + nodes
    problems = []
    if header != expected:
        problems.append(f"header {header}, expected {expected}")
    if len(rows) < 10:
        problems.append(f"only {len(rows)} samples")
    col = {name: i for i, name in enumerate(header)}
    for before, after in zip(rows, rows[1:]):
        if after[col["t_ms"]] <= before[col["t_ms"]]:
            problems.append(f"time went back: {before} then {after}")
            break
        if any(after[i] < before[i] for i in range(1, len(header)) if i != col["up"]):
            problems.append(f"a count went back: {before} then {after}")
            break
    last = rows[-1]
    if last[col["done"]] != report["done"] or \
            sum(last[col[n]] for n in nodes) != report["done"]:
        problems.append(f"last row {last}: node columns sum to "
                        f"{sum(last[col[n]] for n in nodes)}, report done {report['done']}")
    if last[col["duplicates"]] != report["duplicates"]:
        problems.append(f"last duplicates {last[col['duplicates']]}, report "
                        f"{report['duplicates']}")
    if sum(1 for n in nodes if last[col[n]] > 0) < 2:
        problems.append(f"the work was not spread: {last}")
    print(f"{len(rows)} samples, last {dict(zip(header, last))}")
    if problems:
        sys.exit("FAILED (seed %s): %s" % (report.get("seed"), "; ".join(problems)))


main()
