#!/usr/bin/env bash
# CPU per no-op task of DiCE builds side by side: for each round and each
# build, 4 fresh dice-node processes on 127.0.0.1 (node 1 the seed), TASKS
# no-op tasks posted to node 1 in chunks of 1,000, timed from the first
# post until node 1 counts them all ended. Prints, per round and build,
# tasks/s and the CPU seconds of the four processes per 1,000 tasks; the
# builds alternate within each round, so a slow phase of the machine hits
# them alike. With --latency K, each cluster then idles 1 s and takes K
# single no-op tasks one after another, each submitted and awaited in one
# request (bench.py's one(), as bench/peers measures latency); p50 and p99
# follow. Every process is started here and stopped by its pid.
#
# Usage: bench/peers/noop_cpu.sh [--tasks 20000] [--rounds 3] [--slots 1]
#                                [--latency 0] [--node-args "EXTRA OPTIONS"]
#                                BUILD_DIR...
# (a BUILD_DIR holds apps/dice-node/dice-node)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tasks=20000 rounds=3 slots=1 latency=0 node_args=() builds=()
while (($#)); do
  case $1 in
    --tasks) tasks=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --node-args) read -r -a node_args <<<"$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "noop_cpu.sh: unknown option $1" >&2; exit 2 ;;
    *) builds+=("$1"); shift ;;
  esac
done
for v in tasks rounds slots; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "noop_cpu.sh: --$v must be a positive integer" >&2; exit 2; }
done
[[ $latency =~ ^[0-9]+$ ]] || { echo "noop_cpu.sh: --latency must be a whole number" >&2; exit 2; }
((${#builds[@]})) || { echo "noop_cpu.sh: name at least one build directory" >&2; exit 2; }
for b in "${builds[@]}"; do
  [[ -x $b/apps/dice-node/dice-node ]] || { echo "noop_cpu.sh: no $b/apps/dice-node/dice-node" >&2; exit 2; }
done
command -v curl >/dev/null || { echo "noop_cpu.sh: needs curl" >&2; exit 2; }

logs=$(mktemp -d /tmp/dice-noop-cpu.XXXXXX)
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }
trap stop EXIT

ended() { # tasks node 1 counts done or failed
  curl -sf "127.0.0.1:$1/stats" | python3 -c 'import json,sys; t=json.load(sys.stdin)["tasks"]; print(t["done"]+t["failed"])'
}
alive() {
  curl -sf "127.0.0.1:$1/nodes" | python3 -c 'import json,sys; print(sum(n["state"]=="alive" for n in json.load(sys.stdin)["nodes"]))' 2>/dev/null || echo 0
}
cpu_ticks() { local p t=0; for p in "${pids[@]}"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }

one_run() { # build round
  local bin=$1/apps/dice-node/dice-node tag=r$2-$(basename "$1") i p
  mapfile -t p < <(python3 "$here/bench.py" ports 8)
  for i in 1 2 3 4; do
    local a=(--id "p$i" --listen "127.0.0.1:${p[2 * i - 2]}" --http "127.0.0.1:${p[2 * i - 1]}"
             --slots "$slots" --log-level warn --data-dir "$logs/$tag-n$i")
    ((i == 1)) || a+=(--peer "127.0.0.1:${p[0]}")
    "$bin" "${a[@]}" "${node_args[@]}" >"$logs/$tag-n$i.log" 2>&1 &
    pids+=($!)
  done
  local http=${p[1]} t
  for ((t = 0; t < 300; t++)); do [[ $(alive "$http") == 4 ]] && break; sleep 0.1; done
  [[ $(alive "$http") == 4 ]] || { echo "noop_cpu.sh: $tag: the 4 nodes did not see each other (logs in $logs)" >&2; exit 1; }
  local base c0 t0 t1 c1 n
  base=$(ended "$http") c0=$(cpu_ticks) t0=$(date +%s.%N)
  for ((n = 0; n < tasks; n += 1000)); do
    curl -sf -o /dev/null -H 'Content-Type: application/json' \
      -d "{\"kind\":\"echo\",\"payload\":\"\",\"count\":$((tasks - n < 1000 ? tasks - n : 1000))}" \
      "127.0.0.1:$http/tasks" || { echo "noop_cpu.sh: $tag: POST /tasks failed" >&2; exit 1; }
  done
  for ((t = 0; t < 6000; t++)); do (($(ended "$http") - base >= tasks)) && break; sleep 0.05; done
  t1=$(date +%s.%N) c1=$(cpu_ticks)
  (($(ended "$http") - base >= tasks)) || { echo "noop_cpu.sh: $tag: not all tasks ended in 300 s" >&2; exit 1; }
  local lat=""
  if ((latency > 0)); then
    sleep 1
    lat=$(cd "$here" && python3 -c "import bench
d = bench.Dice([$http]); ms = [d.one()[1] * 1000 for _ in range($latency)]
print(f'  one task p50 {bench.pct(ms, 50):.2f} ms  p99 {bench.pct(ms, 99):.2f} ms')") ||
      { echo "noop_cpu.sh: $tag: the latency samples failed" >&2; exit 1; }
  fi
  stop
  python3 -c "import os,sys; tk=os.sysconf('SC_CLK_TCK'); n=$tasks; s=$t1-$t0
print(f'round $2  {sys.argv[1]:<40} {n/s:8.0f} tasks/s  {($c1-$c0)/tk/(n/1000):6.3f} CPU s per 1,000{sys.argv[2]}')" "$1" "$lat"
}

echo "tasks $tasks, rounds $rounds, slots $slots, latency samples $latency; logs in $logs"
for ((r = 1; r <= rounds; r++)); do
  for b in "${builds[@]}"; do one_run "$b" "$r"; done
done
