#!/usr/bin/env bash
# CPU an idle cluster burns: start N single-slot dice-node processes on
# 127.0.0.1 (node 1 the seed), wait until node 1 sees all N alive, then read
# each process's utime+stime from /proc over SECS seconds. Prints the mean
# CPU per node (% of one core) and the total (% of one core). Nodes are
# stopped by pid at the end.
#
# Usage: bench/scaling/idle_cpu.sh [--nodes 32] [--secs 10] [--build DIR] [-- EXTRA dice-node ARGS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=32 secs=10 build=${DICE_BUILD:-$root/build}
extra=()
while (($#)); do
  case $1 in
    --nodes) n=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "idle_cpu.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
((n >= 1 && n <= 39)) || { echo "idle_cpu.sh: N must be 1..39" >&2; exit 2; }
node_bin=$build/apps/dice-node/dice-node
cli=$build/apps/dice/dice
logs=$(mktemp -d /tmp/dice-idle.XXXXXX)
pids=()
stop_cluster() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_cluster EXIT
udp() { echo $((29000 + $1)); }
# A fresh journal each run (builds before the journal lack the option).
has_data_dir=0
[[ $("$node_bin" --help) == *--data-dir* ]] && has_data_dir=1
for i in $(seq 1 "$n"); do
  args=(--id "idle-$i" --listen "127.0.0.1:$(udp "$i")" --http "127.0.0.1:$((29500 + i))"
        --slots 1 --log-level warn "${extra[@]}")
  ((i == 1)) || args+=(--peer "127.0.0.1:$(udp 1)")
  ((has_data_dir)) && args+=(--data-dir "$logs/node$i.data")
  "$node_bin" "${args[@]}" >>"$logs/node$i.log" 2>&1 &
  pids+=($!)
done
deadline=$((SECONDS + 90))
until [[ $("$cli" --node http://127.0.0.1:29501 --json nodes 2>/dev/null |
          jq '[.nodes[] | select(.state == "alive")] | length' 2>/dev/null) == "$n" ]]; do
  ((SECONDS < deadline)) || { echo "node 1 never saw $n alive" >&2; exit 1; }
  sleep 0.2
done
sleep 2
ticks() { # total utime+stime (clock ticks) of all nodes
  local p t=0
  for p in "${pids[@]}"; do
    read -r -a f <"/proc/$p/stat"
    t=$((t + f[13] + f[14]))
  done
  echo "$t"
}
hz=$(getconf CLK_TCK)
t0=$(ticks); sleep "$secs"; t1=$(ticks)
/usr/bin/python3 - "$n" "$secs" "$hz" "$t0" "$t1" <<'PY'
import sys
n, secs, hz, t0, t1 = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
total = (t1 - t0) / hz / secs * 100
print(f"nodes={n} secs={secs:g} total_cpu={total:.1f}% per_node_cpu={total / n:.2f}% (of one core)")
PY
