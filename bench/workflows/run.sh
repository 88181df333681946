#!/usr/bin/env bash
# Workflows on DiCE beside Celery canvas (Celery + Redis), on 127.0.0.1, in
# one run, the systems alternating round after round. Each system gets 3
# workers of SLOTS slots (3 by default in all):
#   dice         3 dice-node processes --slots SLOTS (node 1 the seed of the
#                others); tasks are submitted to node 1
#   celery       redis-server + 3 `celery worker --concurrency SLOTS`
#                (prefork), Celery's defaults otherwise
#   celery-late  the same with task_acks_late and a broker visibility
#                timeout of VIS seconds (celery_app.py), so that a killed
#                worker's messages go back to the queue
# Scenarios (workflows.py runs them), each on a freshly started system:
#   chord       WIDTH no-op tasks and a callback after all of them: first
#               submit to the callback's result (DiCE: the members, then a
#               task with after = their ids; Celery: chord(group, callback))
#   chain       STEPS no-op steps, each after the one before, all submitted
#               up front (DiCE: one task per step, after = the one before;
#               Celery: chain): total time and time per step
#   chord_kill  the chord, and once half its members ended, worker 3 (a
#               dice-node; a celery worker and its pool) killed with SIGKILL
#               by pid: whether the callback's result arrives, and when,
#               within KILL_TIMEOUT seconds of the kill (150: kombu's Redis
#               transport looks for messages past their visibility timeout
#               on one of ten of its 10 s ticks, so celery-late's may wait
#               VIS + 100 s)
# Redis is started here on a free port without persistence; every process
# is started here and stopped by its pid. Missing Debian packages
# (redis-server, python3-redis, python3-celery) are installed with apt-get
# (through sudo when not root).
#
# Usage: bench/workflows/run.sh [--rounds 3] [--quick] [--width 1000]
#          [--steps 100] [--slots 1] [--kill-timeout 150] [--visibility-s 10]
#          [--systems dice,celery,celery-late] [--scenarios chord,chain,chord_kill]
#          [--dice-args "EXTRA dice-node OPTIONS"] [--out DIR] [--build DIR]
# Writes DIR/results.csv (system,round,scenario,metric,value) and
# DIR/summary.json (DIR defaults to bench/workflows), prints medians and the
# ratios DiCE / Celery.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3 # Debian's, where apt-get puts celery and redis

out=$here rounds=3 systems=dice,celery,celery-late scenarios=chord,chain,chord_kill
build=${DICE_BUILD:-$root/build}
width=1000 steps=100 slots=1 kill_timeout=150 visibility=10 timeout=120
dice_args=()
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --quick) width=100 steps=10 kill_timeout=30; shift ;;
    --width) width=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --kill-timeout) kill_timeout=$2; shift 2 ;;
    --visibility-s) visibility=$2; shift 2 ;;
    --systems) systems=$2; shift 2 ;;
    --scenarios) scenarios=$2; shift 2 ;;
    --dice-args) read -r -a dice_args <<<"$2"; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for v in rounds width steps slots kill_timeout visibility; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --${v//_/-} must be a positive integer" >&2; exit 2; }
done
((width >= 2 && width <= 1000)) || { echo "run.sh: --width must be from 2 to 1000 (DiCE's 'after' limit)" >&2; exit 2; }
IFS=, read -r -a systems <<<"$systems"
IFS=, read -r -a scenarios <<<"$scenarios"
for s in "${systems[@]}"; do
  [[ $s =~ ^(dice|celery|celery-late)$ ]] || { echo "run.sh: unknown system '$s'" >&2; exit 2; }
done
for s in "${scenarios[@]}"; do
  [[ $s =~ ^(chord|chain|chord_kill)$ ]] || { echo "run.sh: unknown scenario '$s'" >&2; exit 2; }
done
node_bin=$build/apps/dice-node/dice-node
workers=3

# --- Debian packages
want=()
[[ " ${systems[*]} " == *" celery"* ]] && want+=(redis-server python3-redis python3-celery)
. "$(dirname "${BASH_SOURCE[0]}")/../packages.sh"
install_missing "${want[@]}" || { echo "run.sh: apt-get install failed" >&2; exit 2; }
[[ " ${systems[*]} " != *" dice "* || -x $node_bin ]] || { echo "run.sh: no $node_bin" >&2; exit 2; }

mkdir -p "$out"
csv=$out/results.csv
echo "system,round,scenario,metric,value" >"$csv"
logs=$(mktemp -d /tmp/dice-workflows.XXXXXX)
export PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 WORKFLOWS_VISIBILITY_S=$visibility
echo "systems: ${systems[*]}; scenarios: ${scenarios[*]}; rounds: $rounds"
echo "chord of $width, chain of $steps, $workers workers x $slots slots, kill timeout ${kill_timeout} s"
echo "dice-node: $node_bin ${dice_args[*]}; logs: $logs; csv: $csv"

# --- processes: pids holds the running system's top processes (server first)
. "$(dirname "${BASH_SOURCE[0]}")/../processes.sh"

# start_system SYSTEM TAG: starts it, sets pids and ports (what workflows.py
# connects to).
start_system() {
  local s=$1 tag=$2 i free
  mapfile -t free < <($py "$here/../peers/bench.py" ports $((2 * workers)))
  case $s in
    dice)
      ports=()
      for ((i = 1; i <= workers; i++)); do
        # Short node ids: a callback's `after` lists 1,000 ids in 24 KiB.
        local args=(--id "w$i" --listen "127.0.0.1:${free[2 * i - 2]}" --http "127.0.0.1:${free[2 * i - 1]}"
                    --slots "$slots" --log-level warn --data-dir "$logs/$tag-node$i.data")
        ((i == 1)) || args+=(--peer "127.0.0.1:${free[0]}")
        "$node_bin" "${args[@]}" "${dice_args[@]}" >>"$logs/$tag-node$i.log" 2>&1 &
        pids+=($!)
        ports+=("${free[2 * i - 1]}")
      done
      ;;
    celery | celery-late)
      ports=("${free[0]}")
      /usr/bin/redis-server --bind 127.0.0.1 --port "${ports[0]}" --save '' --appendonly no \
        --dir "$logs" --logfile "$logs/$tag-redis.log" &
      pids+=($!)
      local mode=default
      [[ $s == celery-late ]] && mode=late
      for ((i = 1; i <= workers; i++)); do
        (cd "$logs" && export WORKFLOWS_REDIS_PORT=${ports[0]} WORKFLOWS_CELERY_MODE=$mode &&
          exec $py -m celery -A celery_app worker -n "w$i@%h" --pool prefork --concurrency "$slots" \
            --loglevel WARNING >>"$logs/$tag-celery$i.log" 2>&1) &
        pids+=($!)
      done
      ;;
  esac
}

failures=0
measure() { # SYSTEM ROUND SCENARIO
  local tag=$1-r$2-$3 mode=default
  [[ $1 == celery-late ]] && mode=late
  start_system "$1" "$tag"
  # The victim of chord_kill: worker 3 (pids[0] is redis for Celery).
  local victim=${pids[${#pids[@]} - 1]}
  WORKFLOWS_CELERY_MODE=$mode timeout $((3 * timeout + kill_timeout + 180)) \
    $py "$here/workflows.py" run "$1" --scenario "$3" --round "$2" --csv "$csv" \
    --ports "${ports[*]}" --pids "${pids[*]}" --victim "$victim" --workers "$workers" \
    --width "$width" --steps "$steps" --timeout "$timeout" --kill-timeout "$kill_timeout" ||
    { echo "run.sh: $tag failed (logs in $logs)" >&2; failures=$((failures + 1)); }
  stop_system
}

for r in $(seq 1 "$rounds"); do
  for s in "${systems[@]}"; do
    for sc in "${scenarios[@]}"; do
      echo "== round $r: $s $sc"
      measure "$s" "$r" "$sc"
    done
  done
done
trap - EXIT
$py "$here/workflows.py" summary "$csv" --json "$out/summary.json" || exit 1
((failures == 0)) || { echo "run.sh: $failures measurement(s) failed; their rows are missing" >&2; exit 1; }
