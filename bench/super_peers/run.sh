#!/usr/bin/env bash
# Super-peer relaying in the simulation: dice-sim (production nodes on the
# simulated network) over cluster sizes and loss rates, each run twice,
# with --super-peers off and auto, one CSV row per run: duplicates, bytes
# on the wire per task, and the queue datagrams each node sent per task
# (the mean over the nodes, the busiest node's: a super-peer's, and the
# median node's: a member's).
#
# Usage: bench/super_peers/run.sh [--sim DICE_SIM] [--out DIR]
#                                 [--nodes "16 32 64 128"] [--loss "0 0.2"]
#                                 [--tasks 256] [--seed 1]
# Writes DIR/results.csv (DIR defaults to bench/super_peers).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sim=$root/build/apps/dice-sim/dice-sim
out=$here
sizes="16 32 64 128"
losses="0 0.2"
tasks=256
seed=1
while (($#)); do
  case $1 in
    --sim) sim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nodes) sizes=$2; shift 2 ;;
    --loss) losses=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/{/^#/p}' "$0" | cut -c3-; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $sim ]] || { echo "run.sh: no dice-sim at '$sim' (use --sim)" >&2; exit 2; }
mkdir -p "$out"
csv=$out/results.csv
echo "nodes,loss,super_peers,tasks,seed,converged,duplicates,duplicate_rate,bytes_per_task,node_datagrams_per_task,busiest_node_datagrams_per_task,median_node_datagrams_per_task,makespan_ms,wall_s" >"$csv"
for n in $sizes; do
  for loss in $losses; do
    for sp in off auto; do
      start=$(date +%s.%N)
      # dice-sim exits 1 on a violated invariant: the row says so.
      line=$("$sim" --nodes "$n" --tasks "$tasks" --loss "$loss" --seed "$seed" \
               --super-peers "$sp" --json | tail -n 1) || true
      end=$(date +%s.%N)
      row=$(/usr/bin/python3 - "$line" "$sp" "$start" "$end" <<'PY'
import json, sys
line, sp, start, end = sys.argv[1:]
d = json.loads(line)
print(",".join(str(x) for x in [
    d["nodes"], d["loss"], sp, d["tasks"], d["seed"],
    "yes" if d["converged"] else "no", d["duplicates"],
    f'{d["duplicate_rate"]:.4f}', f'{d["bytes_per_task"]:.0f}',
    f'{d["node_datagrams_per_task"]:.2f}',
    f'{d["busiest_node_datagrams_per_task"]:.2f}',
    f'{d["median_node_datagrams_per_task"]:.2f}',
    d["makespan_ms"], f"{float(end) - float(start):.1f}"]))
PY
)
      echo "$row" | tee -a "$csv"
    done
  done
done
column -s, -t "$csv"
