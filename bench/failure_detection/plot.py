#!/usr/bin/python3
"""Draws bench/failure_detection's recorded rounds: per SIGKILL, the time
until every other node suspects the victim, until the first and the last
declare it dead, and the restarted node's rejoin, beside the configured
suspect and dead timeouts.

    /usr/bin/python3 bench/failure_detection/plot.py bench/failure_detection/results.csv \
        bench/failure_detection/failure_detection.png
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plotting  # noqa: E402

SUSPECT_AFTER_MS, DEAD_AFTER_MS = 1000, 1600  # common/defaults.hpp at the run


def main():
    source, out = plotting.args("plot.py RESULTS.csv OUT.png", 2)
    data = plotting.rows(source)
    rounds = [int(r["round"]) for r in data]
    fig, (ax,) = plotting.panels(1, width=9.5)
    for column, label, style in [("all_suspect_ms", "all suspect", "o-"),
                                 ("first_dead_ms", "first dead", "s-"),
                                 ("all_dead_ms", "all dead", "D-"),
                                 ("rejoin_ms", "rejoin after restart", "^:")]:
        ax.plot(rounds, [float(r[column]) for r in data], style, label=label)
    ax.axhline(SUSPECT_AFTER_MS, color="grey", linestyle="--", linewidth=1,
               label=f"suspect after {SUSPECT_AFTER_MS} ms")
    ax.axhline(DEAD_AFTER_MS, color="k", linestyle="--", linewidth=1,
               label=f"dead after {DEAD_AFTER_MS} ms")
    median = statistics.median(float(r["all_dead_ms"]) for r in data)
    ax.set_title(f"SIGKILL of one of {data[0]['nodes']} dice-node processes: "
                 f"all dead in {median:.0f} ms (median)")
    ax.set_xlabel("round (victim restarted between rounds)")
    ax.set_ylabel("ms after the kill")
    ax.set_xticks(rounds)
    ax.set_xticklabels([f'{r["round"]}\n{r["victim"]}' for r in data], fontsize=7)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))
    ax.grid(alpha=0.3)
    plotting.save(fig, out)


if __name__ == "__main__":
    main()
