#!/usr/bin/env bash
# Side-by-side runs at one cluster size: alternates bench/scaling/run.sh
# between builds (or wrapper directories holding apps/dice-node/dice-node
# and apps/dice/dice), REPS times each, ROUNDS rounds per cluster, and
# prints every build's makespans (sorted), their mean and how many rounds
# met a makespan limit. Runs taken minutes apart differ by ~50 ms at 32 on
# a shared 2-core machine, so only alternating runs are compared.
#
# Usage: bench/scaling/alternate.sh [--out DIR] [--reps 3] [--rounds 5]
#                                   [--nodes 32] [--limit 1.652] BUILD...
# Each BUILD's results go to DIR/NAME-REP/ (NAME: the directory's name).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/dice-alternate.XXXXXX) reps=3 rounds=5 nodes=32 limit=1.652
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    -*) echo "alternate.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# >= 1)) || { echo "alternate.sh: name at least one build directory" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "alternate.sh: --reps must be a positive integer" >&2; exit 2; }
declare -A seen
for b in "$@"; do
  name=$(basename "$b")
  [[ -z ${seen[$name]:-} ]] || { echo "alternate.sh: two builds named '$name'; link one under another name" >&2; exit 2; }
  seen[$name]=1
done
mkdir -p "$out"
for r in $(seq 1 "$reps"); do
  for b in "$@"; do
    name=$(basename "$b")
    echo "rep $r: $name"
    "$here/run.sh" --nodes "$nodes" --rounds "$rounds" --build "$b" \
      --out "$out/$name-$r" >"$out/$name-$r.log" 2>&1
  done
done
for b in "$@"; do
  name=$(basename "$b")
  echo "== $name"
  cat "$out/$name"-*/results.csv | grep -v '^nodes' | cut -d, -f4 | sort -n | tr '\n' ' '
  echo
  cat "$out/$name"-*/results.csv | grep -v '^nodes' |
    awk -F, -v limit="$limit" '{s += $4; n++; if ($4 <= limit) ok++}
      END {printf "mean %.3f s, %d of %d rounds at most %s s\n", s / n, ok, n, limit}'
done
