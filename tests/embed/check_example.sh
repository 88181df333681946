#!/usr/bin/env bash
# Runs the embedding example and checks what a user would: each task's
# result, the refused task's reason, and the summary.
set -euo pipefail
out=$(timeout 60 "$1" 2>&1) || { echo "example failed:"; echo "$out"; exit 1; }
echo "$out"
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "missing in output: $1"; exit 1; }
}
expect "kinds: cpu echo evaluation shout sleep wordcount" # evaluation: dice test's record kind
expect "result: wordcount -> '4'"
expect "result: shout -> 'HELLO FROM AN EMBEDDED NODE'"
expect "result: shout failed: "
expect "shout: nothing to shout"
expect "result: echo -> 'bytes\x00ok' (8 bytes"
expect "summary: 3 done, 1 failed"
