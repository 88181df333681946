#!/usr/bin/env bash
# A node's queue traffic per task against the cluster's size, in dice-sim
# (production nodes on the simulated network), for one build or two side
# by side (this one and a baseline, say the previous commit's): per run,
# duplicates, the queue datagrams a node sent per task (mean, median and
# busiest node), bytes on the wire per task, and the unknown-task questions
# and answers sent.
#
# Usage: bench/node_traffic/run.sh [--sim DICE_SIM] [--baseline DICE_SIM]
#          [--nodes "16 32 64 128"] [--loss "0 0.2"] [--seeds "1 2 3"]
#          [--tasks 256] [--out DIR] [--append]
# Writes DIR/results.csv (DIR defaults to bench/node_traffic), or adds to
# it with --append; a row per build, size, loss and seed, the build named
# "this" or "baseline".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sim=$root/build/apps/dice-sim/dice-sim
baseline=
out=$here
sizes="16 32 64 128"
losses="0 0.2"
seeds="1 2 3"
tasks=256
append=
while (($#)); do
  case $1 in
    --sim) sim=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nodes) sizes=$2; shift 2 ;;
    --loss) losses=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --append) append=1; shift ;;
    -h|--help) sed -n '2,/^set -e/{/^#/p}' "$0" | cut -c3-; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for s in "$sim" $baseline; do
  [[ -x $s ]] || { echo "run.sh: no dice-sim at '$s'" >&2; exit 2; }
done
mkdir -p "$out"
csv=$out/results.csv
[[ -n $append && -s $csv ]] ||
  echo "build,nodes,loss,seed,tasks,converged,duplicates,node_datagrams_per_task,median_node_datagrams_per_task,busiest_node_datagrams_per_task,bytes_per_task,questions,answers,wall_s" >"$csv"
for n in $sizes; do
  for loss in $losses; do
    for seed in $seeds; do
      for build in this ${baseline:+baseline}; do
        bin=$sim
        [[ $build == baseline ]] && bin=$baseline
        start=$(date +%s.%N)
        # dice-sim exits 1 on a violated invariant: the row says so.
        line=$("$bin" --nodes "$n" --tasks "$tasks" --loss "$loss" --seed "$seed" \
                 --json | tail -n 1) || true
        end=$(date +%s.%N)
        /usr/bin/python3 - "$line" "$build" "$start" "$end" <<'PY' | tee -a "$csv"
import json, sys
line, build, start, end = sys.argv[1:]
d = json.loads(line)
sent = d["sent_by_kind"]
answers = sent.get("take_my_task", 0) + sent.get("already_finished_task", 0)
print(",".join(str(x) for x in [
    build, d["nodes"], d["loss"], d["seed"], d["tasks"],
    "yes" if d["converged"] else "no", d["duplicates"],
    f'{d["node_datagrams_per_task"]:.2f}',
    f'{d["median_node_datagrams_per_task"]:.2f}',
    f'{d["busiest_node_datagrams_per_task"]:.2f}',
    f'{d["bytes_per_task"]:.0f}', sent.get("do_you_know_this_task", 0), answers,
    f"{float(end) - float(start):.1f}"]))
PY
      done
    done
  done
done
echo "wrote $csv"
