#!/usr/bin/env bash
# Duplicate executions of real dice-node processes over a lossy network:
# each node behind a UDP proxy that drops, duplicates and reorders
# (bench/lossy/lossy.py says how). Rounds of different proxy seeds.
#
# Usage: bench/lossy/run.sh [--build DIR] [--rounds N] [--csv FILE]
#          [lossy.py options: --nodes 5 --tasks 264 --ms 50 --loss 0.2
#           --dup 0.05 --reorder 0.1] [-- extra dice-node arguments]
# Results append to bench/lossy/results.csv by default.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build rounds=3 csv=$here/results.csv opts=()
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --nodes|--tasks|--ms|--loss|--dup|--reorder|--timeout) opts+=("$1" "$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $build/apps/dice-node/dice-node ]] || { echo "run.sh: no dice-node in $build" >&2; exit 2; }
label=$(git -C "$here" rev-parse --short HEAD)
for r in $(seq 1 "$rounds"); do
  echo "round $r"
  python3 "$here/lossy.py" --build "$build" --seed "$r" --csv "$csv" --label "$label" \
    "${opts[@]}" -- "$@"
done
