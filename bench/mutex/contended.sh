#!/usr/bin/env bash
# Throughput of one contended lock with real processes: 4 dice-node processes
# on 127.0.0.1 (--data-dir none) run `dice lock db -- true` in a loop, one
# client per node, for SECONDS seconds, with each --mutex algorithm in turn.
# Prints acquisitions per second (all clients together) and writes
# OUT/contended.csv (algorithm,seconds,acquisitions,per_second). Every
# process is started here and stopped by its pid.
#
# Usage: bench/mutex/contended.sh [--seconds 20] [--out DIR] [--build DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=20 out=$here build=${DICE_BUILD:-$root/build}
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "contended.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "contended.sh: --seconds must be a positive integer" >&2; exit 2; }
node_bin=$build/apps/dice-node/dice-node
cli=$build/apps/dice/dice
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM if "'"$1"'"=="udp" else socket.SOCK_STREAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "algorithm,seconds,acquisitions,per_second" > "$out/contended.csv"
printf '%-16s %8s %12s\n' algorithm seconds acquired/s
for algorithm in central voting ricart-agrawala token-ring; do
  pids=()
  http=() udp=()
  for i in 1 2 3 4; do udp+=("$(free_port udp)"); http+=("$(free_port tcp)"); done
  for i in 0 1 2 3; do
    args=(--id "c$i" --listen "127.0.0.1:${udp[$i]}" --http "127.0.0.1:${http[$i]}"
          --data-dir none --mutex "$algorithm" --mutex-voters 4 --log-level warn)
    ((i > 0)) && args+=(--peer "127.0.0.1:${udp[0]}")
    "$node_bin" "${args[@]}" > "$work/node$i.log" 2>&1 &
    pids+=($!)
  done
  # Wait until every node sees the others (and voting's start-up abstention).
  for _ in $(seq 100); do
    n=$(curl -s "http://127.0.0.1:${http[3]}/nodes" | grep -o '"alive"' | wc -l || true)
    ((n == 4)) && break
    sleep 0.1
  done
  sleep 3
  clients=()
  for i in 0 1 2 3; do
    (
      end=$((SECONDS + seconds)); n=0
      while ((SECONDS < end)); do
        "$cli" --node "http://127.0.0.1:${http[$i]}" lock db --timeout 30 -- true && n=$((n + 1))
      done
      echo "$n" > "$work/count$i"
    ) &
    clients+=($!)
  done
  for c in "${clients[@]}"; do wait "$c"; done
  total=0
  for i in 0 1 2 3; do total=$((total + $(cat "$work/count$i"))); done
  rate=$(python3 -c "print(round($total / $seconds, 1))")
  printf '%-16s %8s %12s\n' "$algorithm" "$seconds" "$rate"
  echo "$algorithm,$seconds,$total,$rate" >> "$out/contended.csv"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
done
