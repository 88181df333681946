#!/usr/bin/python3
"""Draws bench/tester's recorded results: left, one project's wall time
against N for pytest -n N and dice test (first run, and later rounds with
the durations remembered; medians over rounds); right, 8 projects on N nodes beside the
physical limit of two cores and seed 004's figures.

    /usr/bin/python3 bench/tester/plot.py bench/tester/results.csv bench/tester/tester.png
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402

SEED_004 = {2: 120, 4: 72, 8: 50}  # 8 projects, one machine per node


def main():
    source, out = plotting.args("plot.py RESULTS.csv OUT.png", 2)
    data = plotting.rows(source)
    fig, (single, many) = plotting.panels(2)
    wall = [r for r in data if r["part"] == "single" and r["metric"] == "wall_s"]
    def median_by_n(system, rounds):
        by_n = {}
        for r in wall:
            if r["system"] == system and rounds(int(r["round"])):
                by_n.setdefault(int(r["nodes"]), []).append(float(r["value"]))
        return sorted((n, statistics.median(v)) for n, v in by_n.items())

    series = [(median_by_n("xdist", lambda r: True), "pytest -n N (median of rounds)"),
              (median_by_n("dice", lambda r: r == 1), "dice test, first run"),
              (median_by_n("dice", lambda r: r > 1),
               "dice test, durations remembered (median)")]
    for points, label in series:
        if points:
            single.plot([p[0] for p in points], [p[1] for p in points], "o-", label=label)
    plotting.finish_axes(single, "mpmath's suite, one project",
                         "workers / nodes N (2 cores)", "wall s", log2_x=True)

    serial = next(float(r["value"]) for r in data if r["metric"] == "serial_one_s")
    runs = sorted((int(r["nodes"]), float(r["value"])) for r in data
                  if r["part"] == "many" and r["metric"] == "wall_s")
    ns = [n for n, _ in runs]
    many.plot(ns, [w for _, w in runs], "o-", label="dice test, 8 projects")
    many.plot(ns, [8 * serial / min(n, 2) for n in ns], "k--",
              label="physical limit (8 x serial / 2 cores)")
    many.plot(sorted(SEED_004), [SEED_004[n] for n in sorted(SEED_004)], "s:",
              label="seed 004 (one machine per node)")
    plotting.finish_axes(many, "8 projects at once", "nodes", "wall s", log2_x=True)
    plotting.save(fig, out)


if __name__ == "__main__":
    main()
