#!/usr/bin/env bash
# The long fuzz runs recorded in bench/README.md: each target for RUNS
# executions (default 10 million), one at a time, one process each (-jobs=1),
# at the lowest priority so the machine's other work goes first. Binaries are
# copied first, so a rebuild during the run does not change what runs.
#   fuzz/long_run.sh [RUNS] [TARGET...]     (after building build-fuzz/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000000}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(envelope_fuzz signed_envelope_fuzz bundle_fuzz
                                submit_json_fuzz task_query_fuzz lock_json_fuzz
                                event_json_fuzz evaluation_json_fuzz)
build=$PWD/build-fuzz/fuzz
out=$build/long
mkdir -p "$out/bin"
build-fuzz/fuzz/dice_fuzz_seeds "$build/seeds" "$build/corpus" >/dev/null
printf '%-22s %12s %10s %8s %s\n' target executions exec/s seconds result
for t in "${targets[@]}"; do
  cp "$build/$t" "$out/bin/$t"
  mkdir -p "$out/$t"
  start=$(date +%s)
  # -jobs=1 runs the target in one worker process whose output goes to
  # fuzz-0.log in the current directory; the parent only waits for it.
  dict=()
  [[ -f fuzz/$t.dict ]] && dict=(-dict="$PWD/fuzz/$t.dict")
  status=0
  (cd "$out/$t" && nice -n 19 "$out/bin/$t" -jobs=1 -runs="$runs" -seed=1 \
     "${dict[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
     -artifact_prefix="$out/$t/" "$build/corpus/$t" "$build/seeds/$t" \
     >"$out/$t/parent.log" 2>&1) || status=$?
  secs=$(($(date +%s) - start))
  log=$out/$t/fuzz-0.log
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  result=ok
  if ((status)) || grep -qE 'ERROR: |runtime error|fuzz property failed' "$log"; then
    result="FAILED (see $log)"
  fi
  printf '%-22s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "$secs" "$result"
done
