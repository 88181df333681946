# Sourced by the side-by-side benchmarks' run.sh: `pids` holds the running
# system's top processes (server first); stop_system stops them, and what
# they started, by pid, at the end of each run and on exit.
pids=()
descendants() { # pid -> its descendants' pids, deepest last
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}
stop_system() {
  local p i all=()
  for p in "${pids[@]}"; do mapfile -t -O "${#all[@]}" all < <(descendants "$p"); done
  # Workers before the server, so they do not fight over a vanished socket.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
  local deadline=$((SECONDS + 15))
  for p in "${pids[@]}"; do
    while kill -0 "$p" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  # Children (Celery's pool, an RQ work horse) that outlived their parent.
  for p in "${all[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_system EXIT
trap 'exit 130' INT TERM
