#!/usr/bin/env bash
# What one node spends on traffic per task against the cluster's size, in
# dice-sim (production nodes on the simulated network): every datagram a
# node sent and every one it received, heartbeats, elections, causal
# events and repairs included (node_sent_per_task, node_received_per_task;
# the mean over the nodes and the busiest node), for each way of sending,
# side by side on the same seeds:
#   direct     one unicast datagram per peer for each broadcast
#   multicast  one datagram per broadcast to an IPv4 group (--multicast)
#   relayed    queue broadcasts through super-peers (--super-peers auto)
#   every      direct, with every holder of a causal event resending it to
#              a node whose digest lacks it (--event-resenders 0: as before
#              a few holders did)
# Also duplicates, makespan, convergence, the run's wall time and peak RSS.
#
# Usage: bench/node_cost/run.sh [--sim DICE_SIM] [--nodes "16 32 64 128"]
#          [--modes "direct multicast relayed every"] [--loss 0.2]
#          [--seeds "1"] [--tasks 256] [--out DIR]
# Writes DIR/results.csv (DIR defaults to bench/node_cost); plot it with
# bench/node_cost/plot.py DIR/results.csv DIR/node_cost.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sim=$root/build/apps/dice-sim/dice-sim
out=$here
sizes="16 32 64 128"
modes="direct multicast relayed every"
loss=0.2
seeds=1
tasks=256
while (($#)); do
  case $1 in
    --sim) sim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nodes) sizes=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/{/^#/p}' "$0" | cut -c3-; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $sim ]] || { echo "run.sh: no dice-sim at '$sim'" >&2; exit 2; }
for m in $modes; do
  case $m in direct|multicast|relayed|every) ;;
    *) echo "run.sh: unknown mode '$m' (direct, multicast, relayed, every)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
csv=$out/results.csv
echo "mode,nodes,loss,seed,tasks,converged,duplicates,makespan_ms,node_sent_per_task,node_received_per_task,busiest_node_sent_per_task,busiest_node_received_per_task,wall_s,max_rss_mb" >"$csv"
for n in $sizes; do
  for seed in $seeds; do
    for mode in $modes; do
      args=(--nodes "$n" --tasks "$tasks" --loss "$loss" --seed "$seed" --json)
      case $mode in
        multicast) args+=(--multicast) ;;
        relayed) args+=(--super-peers auto) ;;
        every) args+=(--event-resenders 0) ;;
      esac
      report=$(mktemp)
      # dice-sim exits 1 on a violated invariant: the row says so.
      /usr/bin/time -f "%e %M" -o "$report.time" "$sim" "${args[@]}" >"$report" 2>/dev/null || true
      /usr/bin/python3 - "$report" "$mode" <<'PY' | tee -a "$csv"
import json, sys
path, mode = sys.argv[1:]
d = json.loads(open(path).read().strip().splitlines()[-1])
wall, rss_kb = open(path + ".time").read().split()[-2:]
print(",".join(str(x) for x in [
    mode, d["nodes"], d["loss"], d["seed"], d["tasks"],
    "yes" if d["converged"] else "no", d["duplicates"], d["makespan_ms"],
    f'{d["node_sent_per_task"]:.2f}', f'{d["node_received_per_task"]:.2f}',
    f'{d["busiest_node_sent_per_task"]:.2f}',
    f'{d["busiest_node_received_per_task"]:.2f}',
    wall, int(rss_kb) // 1024]))
PY
      rm -f "$report" "$report.time"
    done
  done
done
echo "wrote $csv"
