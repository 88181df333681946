#!/usr/bin/env bash
# The replica's journal beside a SQLite (WAL) prototype on the same work
# (bench_storage): the disk's limits, append throughput at --sync batch and
# always, restart time and bytes with 100k and 1M tasks held, disk use
# after forgetting 90%, and kill -9, torn-tail and full-disk checks.
#
# Usage: bench/storage/run.sh [--out DIR] [--build DIR] [--quick] [-- ARGS...]
# Writes DIR/results.csv (DIR defaults to bench/storage) and prints the
# summary; ARGS go to bench_storage (see its usage). --quick: 10k tasks
# held, 1 round, 3 kills.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here build=$here/../../build extra=()
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --quick) extra+=(--held 10000 --rounds 1 --kills 3 --append-seconds 1); shift ;;
    --) shift; extra+=("$@"); break ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "storage/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
"$build/bench/storage/bench_storage" --csv "$out/results.csv" "${extra[@]}"
/usr/bin/python3 "$here/summary.py" "$out/results.csv"
