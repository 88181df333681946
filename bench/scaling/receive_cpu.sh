#!/usr/bin/env bash
# What taking in a burst of ENQUEUEs costs a replica: two single-slot
# dice-node processes on 127.0.0.1; node 1 gets `dice submit sleep 600000
# --count COUNT` (tasks that stay running or ready, so nothing else
# happens), and node 2's CPU (utime+stime from /proc) and context switches
# (all its threads) are read before and after. Prints both for node 2.
# Nodes are stopped by pid at the end.
#
# Usage: bench/scaling/receive_cpu.sh [--count 8000] [--build DIR] [-- EXTRA dice-node ARGS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
count=8000 build=${DICE_BUILD:-$root/build}
extra=()
while (($#)); do
  case $1 in
    --count) count=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "receive_cpu.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $count =~ ^[1-9][0-9]*$ ]] && ((count <= 10000)) \
  || { echo "receive_cpu.sh: --count must be 1..10000, got '$count'" >&2; exit 2; }
node_bin=$build/apps/dice-node/dice-node
cli=$build/apps/dice/dice
pids=()
stop_nodes() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_nodes EXIT
# A fresh journal each run (builds before the journal lack the option).
data=$(mktemp -d /tmp/dice-rx.XXXXXX)
d1=() d2=()
if [[ $("$node_bin" --help) == *--data-dir* ]]; then
  d1=(--data-dir "$data/node1") d2=(--data-dir "$data/node2")
fi
"$node_bin" --id rx-1 --listen 127.0.0.1:29101 --http 127.0.0.1:29201 --slots 1 \
  --log-level warn "${extra[@]}" "${d1[@]}" >/dev/null 2>&1 & pids+=($!)
"$node_bin" --id rx-2 --listen 127.0.0.1:29102 --http 127.0.0.1:29202 --slots 1 \
  --peer 127.0.0.1:29101 --log-level warn "${extra[@]}" "${d2[@]}" >/dev/null 2>&1 & pids+=($!)
receiver=${pids[1]}
for _ in $(seq 1 50); do
  n=$("$cli" --node http://127.0.0.1:29201 --json nodes 2>/dev/null \
      | python3 -c 'import json,sys; print(sum(x["state"] == "alive" for x in json.load(sys.stdin)["nodes"]))' 2>/dev/null || echo 0)
  [[ $n == 2 ]] && break
  sleep 0.2
done
# Both slots busy first, so the burst is only taken in.
"$cli" --node http://127.0.0.1:29201 submit sleep 600000 --count 2 >/dev/null
sleep 1
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
switches() {
  local t=0 f
  for f in /proc/"$1"/task/*/status; do
    t=$((t + $(awk '/^(non)?voluntary_ctxt_switches/ {s += $2} END {print s}' "$f")))
  done
  echo "$t"
}
hz=$(getconf CLK_TCK)
t0=$(ticks "$receiver"); s0=$(switches "$receiver")
"$cli" --node http://127.0.0.1:29201 submit sleep 600000 --count "$count" >/dev/null
sleep 1
t1=$(ticks "$receiver"); s1=$(switches "$receiver")
echo "receiver: $(( (t1 - t0) * 1000 / hz )) ms CPU, $((s1 - s0)) context switches for $count ENQUEUEs"
