#!/usr/bin/env bash
# Runs the embedding example and checks what a user would: each task's
# result, the refused task's reason, tasks of one lock that never overlapped,
# the causal event it published and heard back, and the summary.
set -euo pipefail
# A pytest project of two modules, one test failing, run as an evaluation.
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
chmod 755 "$project" # the runner's user (nobody, under root) reads it
mkdir "$project/tests"
printf 'def test_one():\n    assert 1 + 1 == 2\n\ndef test_two():\n    assert 2 * 2 == 4\n' \
  > "$project/tests/test_ok.py"
printf 'def test_wrong():\n    assert 2 + 2 == 5\n' > "$project/tests/test_wrong.py"
out=$(timeout 90 "$1" --project "$project" 2>&1) || { echo "example failed:"; echo "$out"; exit 1; }
echo "$out"
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "missing in output: $1"; exit 1; }
}
expect "kinds: cpu echo evaluation ledger shout sleep test wordcount" # dice test: the record kind, and test (--project)
expect "result: wordcount -> '4'"
expect "result: shout -> 'HELLO FROM AN EMBEDDED NODE'"
expect "result: shout failed: "
expect "shout: nothing to shout"
expect "result: echo -> 'bytes\x00ok' (8 bytes"
# The three ledger tasks hold one lock: each ran alone (else "overlapped").
[[ $(grep -cF "result: ledger -> 'alone'" <<<"$out") == 3 ]] \
  || { echo "the locked ledger tasks did not each run alone"; exit 1; }
expect "message: greetings 'hello, cluster' from embedded-1 #1"
expect "summary: 6 done, 1 failed"
expect "evaluation: 2 modules, 3 tests, 2 passed, 1 failed"
