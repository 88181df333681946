#!/usr/bin/env bash
# DiCE against Celery + Redis, RQ (+ Redis) and beanstalkd on 127.0.0.1, on
# the same workloads, alternating the systems round after round (DiCE,
# Celery, RQ, beanstalkd, then again) so slow phases of a shared machine hit
# them all alike. Every system gets 4 single-slot workers:
#   dice        4 dice-node processes --slots 1 (node 1 the seed of the others)
#   celery      redis-server + one `celery worker --concurrency 4` (prefork)
#   rq          redis-server + 4 `rq worker` processes
#   beanstalkd  beanstalkd + 4 Python workers (beanstalk.py)
# Workloads (bench.py runs them; see README.md beside this script):
#   throughput  TASKS no-op tasks, first submit to last result visible
#   cpu, rss    CPU seconds per 1,000 of those tasks and RSS after them,
#               over every process of the system (children included)
#   latency     SAMPLES single no-op tasks on the idle system: p50, p99,
#               and the submit call's own p50
#   makespan    SLEEP_TASKS tasks of 250 ms on 1, 4 and 8 workers, as a
#               share of the physical limit (tasks * 0.25 s / workers)
# Redis and beanstalkd are started here, on free ports, without persistence;
# every process is started here and stopped by its pid. Missing Debian
# packages are installed with apt-get (through sudo when not root).
#
# Usage: bench/peers/run.sh [--rounds 3] [--quick] [--out DIR]
#                           [--systems dice,celery,rq,beanstalkd]
#                           [--dice-args "EXTRA dice-node OPTIONS"] [--build DIR]
#                           [--dice-slots N]  (slots of each dice-node; 1 by default,
#                           as the other systems' workers run one task at a time)
# Writes DIR/results.csv (system,round,workload,metric,value) and
# DIR/peers.png (DIR defaults to bench/peers), prints medians and ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3 # Debian's, where apt-get puts celery, rq and redis

out=$here rounds=3 systems=dice,celery,rq,beanstalkd build=${DICE_BUILD:-$root/build}
tasks=2000 samples=200 sleep_tasks=128
dice_args=() dice_slots=1
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --quick) tasks=200 samples=20 sleep_tasks=16; shift ;;
    --systems) systems=$2; shift 2 ;;
    --dice-args) read -r -a dice_args <<<"$2"; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --dice-slots) dice_slots=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --rounds must be a positive integer" >&2; exit 2; }
[[ $dice_slots =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --dice-slots must be a positive integer" >&2; exit 2; }
IFS=, read -r -a systems <<<"$systems"
for s in "${systems[@]}"; do
  [[ $s =~ ^(dice|celery|rq|beanstalkd)$ ]] || { echo "run.sh: unknown system '$s'" >&2; exit 2; }
done
node_bin=$build/apps/dice-node/dice-node

# --- Debian packages each system needs (python3-matplotlib only for the plot)
declare -A needs=([dice]="" [celery]="redis-server python3-redis python3-celery"
                  [rq]="redis-server python3-redis python3-rq" [beanstalkd]="beanstalkd")
want=(python3-matplotlib)
for s in "${systems[@]}"; do read -r -a more <<<"${needs[$s]}"; want+=("${more[@]}"); done
. "$(dirname "${BASH_SOURCE[0]}")/../packages.sh"
install_missing "${want[@]}" || echo "run.sh: apt-get install failed" >&2
for s in "${systems[@]}"; do
  for p in ${needs[$s]}; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
      { echo "run.sh: $s needs the Debian package $p" >&2; exit 2; }
  done
done
plotting=yes
$py -c 'import matplotlib' 2>/dev/null ||
  { echo "run.sh: python3-matplotlib is not installed: results.csv only, no plot" >&2; plotting=""; }

mkdir -p "$out"
csv=$out/results.csv
echo "system,round,workload,metric,value" >"$csv"
logs=$(mktemp -d /tmp/dice-peers.XXXXXX)
export PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1 # task modules; no __pycache__ here
echo "systems: ${systems[*]}; rounds: $rounds; tasks $tasks, samples $samples, sleep tasks $sleep_tasks"
echo "dice-node: $node_bin ${dice_args[*]}; logs: $logs; csv: $csv"

# --- processes: pids holds the running system's top processes (server first)
. "$(dirname "${BASH_SOURCE[0]}")/../processes.sh"

wait_binary() { # a rebuild may have removed it for a moment
  local deadline=$((SECONDS + 180))
  until [[ -x $node_bin ]]; do
    ((SECONDS < deadline)) || { echo "run.sh: no $node_bin" >&2; exit 2; }
    sleep 5
  done
}

# start_system SYSTEM WORKERS TAG: starts it, sets pids and ports (what
# bench.py connects to).
start_system() {
  local s=$1 w=$2 tag=$3 i free
  mapfile -t free < <($py "$here/bench.py" ports $((2 * w)))
  case $s in
    dice)
      wait_binary
      ports=()
      for ((i = 1; i <= w; i++)); do
        local args=(--id "p$i" --listen "127.0.0.1:${free[2 * i - 2]}" --http "127.0.0.1:${free[2 * i - 1]}"
                    --slots "$dice_slots" --log-level warn)
        # A fresh journal each run (builds before the journal lack the option).
        if [[ " ${dice_args[*]} " != *" --data-dir "* && $("$node_bin" --help) == *--data-dir* ]]; then
          args+=(--data-dir "$logs/$tag-node$i.data")
        fi
        ((i == 1)) || args+=(--peer "127.0.0.1:${free[0]}")
        "$node_bin" "${args[@]}" "${dice_args[@]}" >>"$logs/$tag-node$i.log" 2>&1 &
        pids+=($!)
        ports+=("${free[2 * i - 1]}")
      done
      ;;
    celery | rq)
      ports=("${free[0]}")
      # No RDB snapshots, no AOF: a broker in memory only, like beanstalkd's.
      /usr/bin/redis-server --bind 127.0.0.1 --port "${ports[0]}" --save '' --appendonly no \
        --dir "$logs" --logfile "$logs/$tag-redis.log" &
      pids+=($!)
      if [[ $s == celery ]]; then
        # One worker with a prefork pool of W processes: what a Celery user
        # runs on one machine (Celery's defaults otherwise).
        (cd "$logs" && export PEERS_REDIS_PORT=${ports[0]} && exec $py -m celery -A celery_app worker \
          --pool prefork --concurrency "$w" --loglevel WARNING >>"$logs/$tag-celery.log" 2>&1) &
        pids+=($!)
      else
        for ((i = 1; i <= w; i++)); do
          # RQ's default worker: it forks a work horse for every job.
          (cd "$logs" && exec /usr/bin/rq worker --url "redis://127.0.0.1:${ports[0]}" --quiet \
            >>"$logs/$tag-rq$i.log" 2>&1) &
          pids+=($!)
        done
      fi
      ;;
    beanstalkd)
      ports=("${free[0]}")
      /usr/bin/beanstalkd -l 127.0.0.1 -p "${ports[0]}" >>"$logs/$tag-beanstalkd.log" 2>&1 & # no -b: no binlog
      pids+=($!)
      sleep 0.2 # listening before the workers connect
      for ((i = 1; i <= w; i++)); do
        $py "$here/beanstalk.py" worker "${ports[0]}" >>"$logs/$tag-bs$i.log" 2>&1 &
        pids+=($!)
      done
      ;;
  esac
}

failures=0
measure() { # SYSTEM ROUND WORKERS PHASE
  local tag=$1-r$2-w$3-$4
  start_system "$1" "$3" "$tag"
  $py "$here/bench.py" run "$1" --round "$2" --csv "$csv" --ports "${ports[*]}" --pids "${pids[*]}" \
    --workers "$3" --phase "$4" --tasks "$tasks" --samples "$samples" --sleep-tasks "$sleep_tasks" ||
    { echo "run.sh: $tag failed (logs in $logs)" >&2; failures=$((failures + 1)); }
  stop_system
}

for r in $(seq 1 "$rounds"); do
  for s in "${systems[@]}"; do
    echo "== round $r: $s"
    measure "$s" "$r" 4 main
    for w in 1 4 8; do measure "$s" "$r" "$w" makespan; done
  done
done
trap - EXIT
$py "$here/summary.py" "$csv" || exit 1
if [[ -n $plotting ]]; then $py "$here/plot.py" "$csv" "$out/peers.png"; fi
((failures == 0)) || { echo "run.sh: $failures measurement(s) failed; their rows are missing" >&2; exit 1; }
