#!/usr/bin/env bash
# Scaling with real processes: for each cluster size N, start N single-slot
# dice-node processes on 127.0.0.1 (node 1 is the seed of the others), wait
# until node 1 sees all N alive, submit TASKS sleep tasks of MS ms to node 1
# with the dice CLI (--wait --json), and record the makespan (from the first
# task becoming ready to the last one finishing, by the tasks' own ready_at_ms
# and finished_at_ms in node 1's /tasks; the CLI's "seconds", which start
# after the submission returns and are known to its 200 ms polling, are kept
# as cli_s), speedup against N=1, efficiency = speedup/N and duplicate
# executions (sum of executions.started over all nodes minus TASKS), the
# share of the physical limit (limit_efficiency = total work / (N x
# makespan): 1.0 means no time lost at all, whatever N=1 pays), plus the
# summed executions.canceled and queue.claims_lost counters that explain them,
# and the p50/p99 time from a task becoming ready to the start of the
# execution that ended it (ready_at_ms/started_at_ms of node 1's /tasks),
# and the datagrams a node sent per task (mean over the nodes, and the
# busiest node's and the median node's; heartbeats included).
# With --rounds K the same cluster runs the workload K times, one CSV row
# per round (its tasks are those that became ready after it began; counters
# are what the round added); speedups are against N=1's first round. The
# cluster is stopped by pid after each size (and on any exit).
# With --netns (root, iproute2) each node runs in a network namespace of
# its own, with its own address (10.77.0.0/16) on one bridge in a hub
# namespace, as separate machines on a LAN would; the run creates them and
# deletes them when the size is done. Sizes up to 1,000; nodes use a
# cluster key made for the run, as off-loopback nodes must.
#
# Usage: bench/scaling/run.sh [--out DIR] [--nodes "1 2 4 8 16 32"]
#                             [--tasks 128] [--ms 250] [--rounds 1]
#                             [--build DIR]
#                             [--node-args "EXTRA dice-node OPTIONS"] [--netns]
# Writes DIR/results.csv and DIR/speedup.png (DIR defaults to bench/scaling).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

out=$here
sizes="1 2 4 8 16 32"
tasks=128
ms=250
rounds=1
build=${DICE_BUILD:-}
node_args=()
netns=""
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --nodes) sizes=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --ms) ms=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --node-args) read -r -a node_args <<<"$2"; shift 2 ;;
    --netns) netns=1; shift ;;
    -h|--help) sed -n '2,/^set -e/{/^#/p}' "$0" | cut -c3-; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --rounds must be a positive integer, got '$rounds'" >&2; exit 2; }
build=${build:-$root/build}
node_bin=$build/apps/dice-node/dice-node
cli=$build/apps/dice/dice
[[ -x $node_bin && -x $cli ]] || { echo "run.sh: no dice-node/dice binaries under '$build' (use --build)" >&2; exit 2; }

plotting=yes
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "run.sh: python3-matplotlib is not installed (apt-get install python3-matplotlib): results.csv only, no plot" >&2
  plotting=""
fi
mkdir -p "$out"
csv=$out/results.csv
logs=$(mktemp -d /tmp/dice-scaling.XXXXXX)
# Ports: size N uses UDP 27000+40*N+i and HTTP 28000+40*N+i (i = 1..N, N <= 39),
# so no two sizes share a port and a slow-to-exit node cannot collide.
udp_port() { echo $((27000 + 40 * $1 + $2)); }
http_port() { echo $((28000 + 40 * $1 + $2)); }

# --netns: node i's namespace and address; `at I CMD` runs CMD in it.
ns_of() { echo "dice-sc$$-$1"; }
hub_ns="dice-sc$$-hub"
node_ip() { echo "10.77.$(($1 / 250)).$(($1 % 250 + 1))"; }
at() {
  local i=$1; shift
  if [[ -n $netns ]]; then ip netns exec "$(ns_of "$i")" "$@"; else "$@"; fi
}
made_ns=0
make_netns() { # N: a hub with a bridge, and N namespaces wired to it
  ip netns add "$hub_ns"
  ip -n "$hub_ns" link add br0 type bridge mcast_snooping 0
  ip -n "$hub_ns" link set br0 up
  local i ns
  for i in $(seq 1 "$1"); do
    ns=$(ns_of "$i")
    ip netns add "$ns"
    made_ns=$i
    ip -n "$ns" link set lo up
    ip -n "$hub_ns" link add "h$i" type veth peer name eth0 netns "$ns"
    ip -n "$hub_ns" link set "h$i" master br0 up
    ip -n "$ns" addr add "$(node_ip "$i")/16" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add 224.0.0.0/4 dev eth0 # for --multicast
  done
}
drop_netns() {
  local i
  for i in $(seq 1 "$made_ns"); do ip netns del "$(ns_of "$i")" 2>/dev/null || true; done
  ip netns del "$hub_ns" 2>/dev/null || true
  made_ns=0
}

pids=()
stop_cluster() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  local deadline=$((SECONDS + 10))
  for p in "${pids[@]}"; do
    while kill -0 "$p" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  pids=()
  [[ -z $netns ]] || drop_netns
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

# The dice CLI against node I of size N.
cli_at() {
  local n=$1 i=$2; shift 2
  if [[ -n $netns ]]; then
    at "$i" "$cli" --node "http://127.0.0.1:8401" "$@"
  else
    "$cli" --node "http://127.0.0.1:$(http_port "$n" "$i")" "$@"
  fi
}
alive_count() { # N -> number of alive members node 1 sees (incl. itself)
  cli_at "$1" 1 --json nodes 2>/dev/null |
    jq '[.nodes[] | select(.state == "alive")] | length' 2>/dev/null || echo 0
}

echo "nodes,tasks,task_ms,makespan_s,cli_s,ideal_s,speedup,efficiency,duplicates,canceled,claims_lost,done,failed,nodes_used,min_per_node,max_per_node,ready_start_p50_ms,ready_start_p99_ms,round,limit_efficiency,node_datagrams_per_task,busiest_node_datagrams_per_task,median_node_datagrams_per_task" >"$csv"
base=""
has_data_dir=0
[[ $("$node_bin" --help) == *--data-dir* ]] && has_data_dir=1
echo "binaries: $build; logs: $logs; csv: $csv"
if [[ -n $netns ]]; then
  [[ $(id -u) == 0 ]] || { echo "run.sh: --netns needs root (ip netns)" >&2; exit 2; }
  key=$logs/cluster.key
  head -c 32 /dev/urandom >"$key"
  chmod 600 "$key"
fi
for n in $sizes; do
  if [[ -n $netns ]]; then
    ((n >= 1 && n <= 1000)) || { echo "run.sh: N must be 1..1000" >&2; exit 2; }
    make_netns "$n"
  else
    ((n >= 1 && n <= 39)) || { echo "run.sh: N must be 1..39" >&2; exit 2; }
  fi
  for i in $(seq 1 "$n"); do
    if [[ -n $netns ]]; then
      args=(--id "s$n-$i" --listen "$(node_ip "$i"):7946" --http "127.0.0.1:8401"
            --cluster-key-file "$key")
      ((i == 1)) || args+=(--peer "$(node_ip 1):7946")
    else
      args=(--id "s$n-$i" --listen "127.0.0.1:$(udp_port "$n" "$i")" --http "127.0.0.1:$(http_port "$n" "$i")")
      ((i == 1)) || args+=(--peer "127.0.0.1:$(udp_port "$n" 1)")
    fi
    args+=(--slots 1 --log-level warn "${node_args[@]}")
    # A fresh journal each run (builds before the journal lack the option).
    ((has_data_dir)) && args+=(--data-dir "$logs/n$n-node$i.data")
    # `ip netns exec` execs the node, so $! is the node's pid.
    in_ns=()
    [[ -z $netns ]] || in_ns=(ip netns exec "$(ns_of "$i")")
    "${in_ns[@]}" "$node_bin" "${args[@]}" >>"$logs/n$n-node$i.log" 2>&1 &
    pids+=($!)
  done
  deadline=$((SECONDS + 90))
  until [[ $(alive_count "$n") == "$n" ]]; do
    ((SECONDS < deadline)) || { echo "N=$n: node 1 never saw $n alive (it saw $(alive_count "$n"))" >&2; exit 1; }
    sleep 0.2
  done
  sleep 1 # let the last joiners learn everyone too
  # Counters are cumulative: each round reports what it added.
  prev_started=0 prev_canceled=0 prev_lost=0
  declare -A prev_sent=()
  for r in $(seq 1 "$rounds"); do
    t0=$(date +%s%3N) # tasks of this round became ready after this
    json=$(cli_at "$n" 1 --json submit sleep "$ms" --count "$tasks" --wait --timeout 600 | tail -n 1) || true
    sleep 0.5
    cli_at "$n" 1 --json tasks --state done >"$logs/n$n-r$r-tasks.json" || true
    started=0 canceled=0 lost=0 sent_each=""
    for i in $(seq 1 "$n"); do
      read -r s c l d < <(cli_at "$n" "$i" --json stats |
        jq -r '[.executions.started, .executions.canceled, .queue.claims_lost, .wire.datagrams_sent] | @tsv')
      started=$((started + s)) canceled=$((canceled + c)) lost=$((lost + l))
      # What this node sent during the round (heartbeats included).
      sent_each+=" $((d - ${prev_sent[$i]:-0}))" prev_sent[$i]=$d
    done
    read -r secs done failed used minp maxp < <(jq -r \
      '[.seconds, .done, .failed, (.per_node|length), ([.per_node[]]|min // 0), ([.per_node[]]|max // 0)] | @tsv' <<<"$json")
    row=$(/usr/bin/python3 - "$n" "$tasks" "$ms" "$secs" "${base:-}" "$((started - prev_started - tasks))" \
          "$((canceled - prev_canceled))" "$((lost - prev_lost))" "$done" "$failed" "$used" "$minp" "$maxp" \
          "$logs/n$n-r$r-tasks.json" "$t0" "$r" "$sent_each" <<'EOF'
import json, sys, math
n, tasks, ms, secs, base, dup, canc, lost, done, failed, used, minp, maxp, tasks_json, t0, rnd, sent_each = sys.argv[1:]
n, tasks, ms, secs, t0 = int(n), int(tasks), int(ms), float(secs), int(t0)
ideal = math.ceil(tasks / n) * ms / 1000.0
try:
    rows = [t for t in json.load(open(tasks_json))["tasks"]
            if t.get("ready_at_ms", 0) >= t0]
except (OSError, ValueError, KeyError):
    rows = []
# Makespan by the tasks' own clocks (one machine, one wall clock).
ready = [t["ready_at_ms"] for t in rows if t.get("ready_at_ms")]
fin = [t["finished_at_ms"] for t in rows if t.get("finished_at_ms")]
span = (max(fin) - min(ready)) / 1000.0 if ready and fin else secs
if not base and n == 1:
    base = str(span)
sp = f"{float(base) / span:.3f}" if base else ""
eff = f"{float(base) / span / n:.3f}" if base else ""
# Ready-to-start latency of each done task (wall-clock ms on one machine).
lat = sorted(t["started_at_ms"] - t["ready_at_ms"] for t in rows
             if t.get("started_at_ms") and t.get("ready_at_ms"))
def pct(p):  # nearest rank
    return str(lat[max(0, math.ceil(p / 100 * len(lat)) - 1)]) if lat else ""
# Against the physical limit: the work itself, spread over every slot.
limit = f"{tasks * ms / 1000.0 / n / span:.3f}"
# Datagrams each node sent per task of the round: the mean over the nodes,
# the busiest node's (a super-peer's, with --super-peers) and the median
# node's (a member's, with --super-peers).
sent = sorted(int(x) for x in sent_each.split())
per_node = f"{sum(sent) / n / tasks:.2f}"
busiest = f"{sent[-1] / tasks:.2f}"
median = f"{sent[len(sent) // 2] / tasks:.2f}"
print(",".join(map(str, [n, tasks, ms, f"{span:.3f}", f"{secs:.3f}", f"{ideal:.3f}", sp, eff, dup, canc, lost, done, failed, used, minp, maxp, pct(50), pct(99), rnd, limit, per_node, busiest, median])))
EOF
)
    prev_started=$started prev_canceled=$canceled prev_lost=$lost
    echo "$row" >>"$csv"
    if [[ -z $base && $n == 1 ]]; then base=$(cut -d, -f4 <<<"$row"); fi
    echo "N=$n: $row"
    ((r == rounds)) || sleep 1 # let the last DONE reports settle
  done
  stop_cluster
done
trap - EXIT
# Speedups need N=1; without it there is a table but nothing to plot.
if [[ -n $base && -n $plotting ]]; then
  /usr/bin/python3 "$here/plot.py" "$csv" "$out/speedup.png"
elif [[ -z $base ]]; then
  echo "run.sh: no N=1 in this run, so no speedups and no plot" >&2
fi
column -s, -t "$csv"
