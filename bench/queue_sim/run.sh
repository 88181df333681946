#!/usr/bin/env bash
# Replicated-queue benchmark: drives dice-sim --json over a grid of loss rates
# and cluster sizes (several seeds where cheap), writes one CSV row per run,
# then prints the table of means and draws the plot (summarize.py).
#
# Usage: bench/queue_sim/run.sh [DICE_SIM] [OUT_DIR]
#   DICE_SIM  the dice-sim binary (default: build/apps/dice-sim/dice-sim)
#   OUT_DIR   where results.csv, table.md and queue_sim.png go
#             (default: /tmp/queue_sim)
# Every node is a production node, as dice-sim runs it. QUICK=1 skips
# the 256-node 10,000-task run (minutes of CPU).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sim=${1:-build/apps/dice-sim/dice-sim}
out=${2:-/tmp/queue_sim}
mkdir -p "$out"
csv=$out/results.csv
echo "sweep,nodes,tasks,loss,seed,done,converged,executions,duplicates,duplicate_rate,messages_per_task,running_heartbeats_per_task,bytes_per_task,makespan_ms,wall_ms" >"$csv"

run() { # sweep nodes tasks loss seed
  local line
  # dice-sim exits 1 on a violated invariant: record the run all the same.
  line=$("$sim" --nodes "$2" --tasks "$3" --loss "$4" --seed "$5" --json | tail -n 1) || true
  /usr/bin/python3 -c '
import json, sys
sweep, line = sys.argv[1], sys.argv[2]
d = json.loads(line)
keys = ["nodes", "tasks", "loss", "seed", "done", "converged", "executions",
        "duplicates", "duplicate_rate", "messages_per_task",
        "running_heartbeats_per_task", "bytes_per_task", "makespan_ms",
        "wall_ms"]
print(",".join([sweep] + [str(d[k]).lower() if isinstance(d[k], bool) else str(d[k]) for k in keys]))
' "$1" "$line" >>"$csv"
  tail -n 1 "$csv" >&2
}

seeds() { # nodes -> seeds worth running
  if (($1 <= 32)); then echo 1 2 3 4 5; elif (($1 <= 64)); then echo 1 2 3; elif (($1 <= 128)); then echo 1 2; else echo 1; fi
}

for loss in 0 0.1 0.2 0.4; do
  for seed in 1 2 3 4 5; do run loss 16 256 "$loss" "$seed"; done
done
for loss in 0 0.2; do
  for nodes in 2 4 8 16 32 64 128 256; do
    for seed in $(seeds "$nodes"); do run "nodes-loss$loss" "$nodes" 256 "$loss" "$seed"; done
  done
done
if [[ "${QUICK:-0}" != 1 ]]; then
  run big 256 10000 0 1
fi
/usr/bin/python3 "$here/summarize.py" "$csv" "$out"
