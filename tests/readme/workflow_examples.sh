#!/usr/bin/env bash
# The README's workflow examples (a chain, a chord, a schedule), run as a
# user would paste them, with the dice CLI against a real dice-node.
# Usage: workflow_examples.sh DICE DICE_NODE SOURCE_DIR
set -euo pipefail
dice=$(realpath "$1") node=$(realpath "$2") src=$(realpath "$3")
work=$(mktemp -d)
node_pid=
cleanup() {
  [[ -n $node_pid ]] && kill "$node_pid" 2>/dev/null && wait "$node_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# The sh block of the README's "Workflows" bullet, unindented.
awk '/\*\*Workflows\*\*/ {on = 1} on && /^  ```sh/ {inside = 1; next}
     inside && /^  ```/ {exit} inside {sub(/^  /, ""); print}' \
  "$src/README.md" > "$work/examples.sh"
[[ -s $work/examples.sh ]] || { echo "no Workflows example block in README.md"; exit 1; }
echo "--- the README's examples:"; cat "$work/examples.sh"

ports=$(python3 -c 'import socket
for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind); s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1]); s.close()')
udp=$(sed -n 1p <<<"$ports") http=$(sed -n 2p <<<"$ports")
"$node" --id readme-1 --listen "127.0.0.1:$udp" --http "127.0.0.1:$http" \
  --data-dir "$work/data" --shell-allow /bin/sh --slots 2 > "$work/node.log" 2>&1 &
node_pid=$!
export DICE_NODE="http://127.0.0.1:$http"
for _ in $(seq 50); do
  "$dice" nodes > /dev/null 2>&1 && break
  sleep 0.1
done

mkdir "$work/bin" && ln -s "$dice" "$work/bin/dice"
cd "$work"
out=$(PATH="$work/bin:$PATH" timeout 60 bash -euo pipefail examples.sh 2>&1) || {
  echo "--- the examples failed:"; echo "$out"; echo "--- node log:"; cat node.log; exit 1; }
echo "--- their output:"; echo "$out"

status=0
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "missing from the output: $1"; status=1; }
}
expect "alpha-beta"          # the chain: the child read its parent's result
expect "sum  done  after work"  # the chord: the fan-in ran after the fan-out
expect "work  done  (3 tasks)"
expect "schedule beat added"
schedules=$("$dice" --json schedule list)
grep -q '"name":"beat"' <<<"$schedules" && grep -q '"next_tick_ms"' <<<"$schedules" ||
  { echo "schedule list: $schedules"; status=1; }
((status == 0)) && echo "the README's workflow examples work"
exit $status
