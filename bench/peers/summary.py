#!/usr/bin/python3
"""Medians over rounds of bench/peers/results.csv, one column per system,
and the ratio DiCE / each peer (for tasks/s and shares higher is better,
for the rest lower is better).

Usage: summary.py RESULTS.csv
"""
import csv
import statistics
import sys

ORDER = ["dice", "celery", "rq", "beanstalkd"]
HIGHER_BETTER = ("tasks_per_s", "share_")


def medians(path):
    """{(workload, metric): {system: (median, rounds)}} in file order."""
    vals = {}
    for r in csv.DictReader(open(path)):
        vals.setdefault((r["workload"], r["metric"]), {}).setdefault(r["system"], []).append(float(r["value"]))
    return {k: {s: (statistics.median(v), len(v)) for s, v in by.items()} for k, by in vals.items()}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    med = medians(sys.argv[1])
    if not med:
        sys.exit("summary.py: no results")
    systems = [s for s in ORDER if any(s in by for by in med.values())]
    peers = [s for s in systems if s != "dice"]
    head = ["workload", "metric"] + systems + [f"dice/{p}" for p in peers]
    lines = [head]
    for (w, m), by in med.items():
        cells = [w, m + (" (higher better)" if m.startswith(HIGHER_BETTER) else "")]
        cells += [f"{by[s][0]:.4g}" if s in by else "-" for s in systems]
        for p in peers:
            ok = "dice" in by and p in by and by[p][0]
            cells.append(f"{by['dice'][0] / by[p][0]:.3g}" if ok else "-")
        lines.append(cells)
    width = [max(len(l[i]) for l in lines) for i in range(len(head))]
    rounds = max(n for by in med.values() for _, n in by.values())
    print(f"medians over {rounds} round(s)")
    for l in lines:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(l, width))))


if __name__ == "__main__":
    main()
