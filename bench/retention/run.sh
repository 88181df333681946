#!/usr/bin/env bash
# What a replica holds as tasks run, with a short retention and with the
# default one (bench/retention/retention.py): RSS, journal bytes and tasks
# held per node after each checkpoint, restart time, join bytes.
#
# Usage: bench/retention/run.sh [--short-checkpoints 10000,100000,1000000]
#          [--long-checkpoints 10000,100000] [--out DIR] [--build DIR]
# Writes DIR/results.csv (DIR defaults to bench/retention).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here build=$here/../../build short=10000,100000,1000000 long=10000,100000
while (($#)); do
  case $1 in
    --short-checkpoints) short=$2; shift 2 ;;
    --long-checkpoints) long=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "retention/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
rm -f "$out/results.csv"
node=$build/apps/dice-node/dice-node
python3 "$here/retention.py" --node "$node" --keep-ms 2000 --checkpoints "$short" \
  --label "keep 2 s" --csv "$out/results.csv"
python3 "$here/retention.py" --node "$node" --checkpoints "$long" \
  --label "keep 24 h (default)" --csv "$out/results.csv"
