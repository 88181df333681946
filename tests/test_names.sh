#!/usr/bin/env bash
# Fails if a test name holds a ';': CTest reads it as a list separator, so
# the name it passes to the test binary is cut there, matches no test, and
# the test "passes" having run nothing.
set -u
bad=0
for bin in "$@"; do
  if names=$("$bin" --list-test-names-only | grep ';'); then
    echo "$bin: test names with ';' (rename them):"
    echo "$names"
    bad=1
  fi
done
exit $bad
