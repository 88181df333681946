#!/usr/bin/env bash
# Backlog benchmark (issue 17, item 5): 100,000 no-op tasks submitted to a
# 3-node cluster on 127.0.0.1 as ten concurrent POST /tasks of 10,000, and
# the latency of GET /stats on the submitting node meanwhile.
#
# Usage: bench/backlog/run.sh [--build DIR] [--rounds N] [--csv FILE]
#                             [-- extra dice-node arguments]
# Every process it starts is stopped by its pid. Results append to
# bench/backlog/results.csv by default.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build rounds=1 csv=$here/results.csv
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $build/apps/dice-node/dice-node ]] || { echo "run.sh: no dice-node in $build" >&2; exit 2; }
for r in $(seq 1 "$rounds"); do
  echo "round $r"
  python3 "$here/backlog.py" --build "$build" --submits 10 --count 10000 \
    --timeout 900 --csv "$csv" --label "$(git -C "$here" rev-parse --short HEAD)" -- "$@"
done
