#!/usr/bin/env python3
"""Runs dice-sim with the given arguments (plus --json) and checks what a
user would: the last line is one JSON object, the run converged, every task
ended DONE (with --linger-ms: every accepted task forgotten on every
replica, none held) and no invariant was violated."""
import json
import subprocess
import sys


def checked_run(args):
    """Runs dice-sim `args` with --json; exits naming every problem, else
    returns the report and its line."""
    cmd = args + ["--json"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = run.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"no output; exit {run.returncode}; stderr: {run.stderr}")
    report = json.loads(lines[-1])
    problems = []
    if run.returncode != 0:
        problems.append(f"exit status {run.returncode}")
    if report.get("converged") is not True:
        problems.append("not converged")
    if "--linger-ms" in cmd:
        if report.get("held") != 0 or not report.get("accepted") or \
                report.get("forgotten", 0) < report.get("accepted"):
            problems.append(f"held {report.get('held')}, forgotten "
                            f"{report.get('forgotten')} of {report.get('accepted')}")
    elif report.get("done") != report.get("tasks") or not report.get("tasks"):
        problems.append(f"done {report.get('done')} of {report.get('tasks')}")
    if report.get("violations"):
        problems.append(f"{report.get('violation_count')} violations, first: "
                        f"{report['violations'][:3]}")
    if problems:
        print(lines[-1])
        sys.exit("FAILED (seed %s, %s): %s" % (report.get("seed"), " ".join(args[1:]),
                                              "; ".join(problems)))
    return report, lines[-1]


if __name__ == "__main__":
    print(checked_run(sys.argv[1:])[1])
