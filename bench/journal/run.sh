#!/usr/bin/env bash
# What the replica's journal costs: bench/peers' DiCE workloads (4
# single-slot nodes: no-op throughput, CPU, single-task latency, makespan)
# with the journal as shipped (--sync batch), with an fsync before every
# answer (--sync always), and in memory only (--data-dir none), the three
# alternating round after round.
#
# Usage: bench/journal/run.sh [--rounds 3] [--quick] [--out DIR] [--build DIR]
# Writes DIR/<config>/results.csv (DIR defaults to bench/journal) and prints
# each configuration's medians.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here rounds=3 extra=()
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --quick) extra+=(--quick); shift ;;
    --out) out=$2; shift 2 ;;
    --build) extra+=(--build "$2"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "journal/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "journal/run.sh: --rounds must be a positive integer" >&2; exit 2; }
declare -A args=([batch]="--sync batch" [always]="--sync always" [memory]="--data-dir none")
for ((r = 1; r <= rounds; r++)); do
  for config in batch always memory; do
    mkdir -p "$out/$config/round$r"
    echo "== round $r: $config (${args[$config]})"
    "$here/../peers/run.sh" --systems dice --rounds 1 --dice-args "${args[$config]}" \
      --out "$out/$config/round$r" "${extra[@]}" | grep -E '^(dice|workload|  )' || true
  done
done
# One CSV per configuration, every round in it.
/usr/bin/python3 - "$out" "$rounds" <<'PY'
import csv, statistics, sys, os
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for config in ("batch", "always", "memory"):
    with open(os.path.join(out, config, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["system", "round", "workload", "metric", "value"])
        for r in range(1, rounds + 1):
            path = os.path.join(out, config, f"round{r}", "results.csv")
            for row in csv.DictReader(open(path)):
                w.writerow([config, r, row["workload"], row["metric"], row["value"]])
                rows.setdefault((row["workload"], row["metric"]), {}).setdefault(config, []).append(float(row["value"]))
print(f"{'workload':<12}{'metric':<28}{'batch':>12}{'always':>12}{'memory':>12}{'batch/memory':>14}")
for (workload, metric), by in sorted(rows.items()):
    med = {c: statistics.median(v) for c, v in by.items()}
    ratio = med["batch"] / med["memory"] if med.get("memory") else float("nan")
    print(f"{workload:<12}{metric:<28}" + "".join(f"{med.get(c, float('nan')):>12.4g}" for c in ("batch", "always", "memory")) + f"{ratio:>14.3f}")
PY
