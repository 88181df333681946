#!/usr/bin/env bash
# Runs the host-actor example and checks what a user would: the refused
# submit's reason, the first result, the follow-up made from it, the causal
# message heard back, and a clean finish.
set -euo pipefail
out=$(timeout 90 "$1" 2>&1) || { echo "example failed:"; echo "$out"; exit 1; }
echo "$out"
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "missing in output: $1"; exit 1; }
}
expect "host: refused: unknown kind 'nosuch'"
expect "host: wordcount -> '9'"
expect "host: square -> '81' (done)"
expect "host: heard 'wordcount 9, square 81' on pipeline from actor-example"
expect "host: done"
