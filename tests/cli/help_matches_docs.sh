#!/usr/bin/env bash
# `dice --help` and the docs agree: no command listed twice, every command
# documented as `dice CMD` in README.md or docs/, and every `--option` the
# docs name in backticks is one a binary's --help lists (or another
# program's, named below).
# Usage: help_matches_docs.sh DICE DICE_NODE DICE_SIM SOURCE_DIR
set -euo pipefail
dice=$1 node=$2 sim=$3 src=$4
help=$("$dice" --help)
docs=$(cat "$src/README.md" "$src"/docs/*.md)
status=0
# A command: its first word, and its second when that is a word too
# (event publish, event watch), not an argument (ID, KIND, [--state ...]).
# The description follows several spaces: a second word one space on.
commands=$(grep -E '^  [a-z]+( |$)' <<<"$help" |
  sed -E 's/^  ([a-z]+)( ([a-z]+)( |$))?.*/\1_\3/; s/_$//')
dupes=$(sort <<<"$commands" | uniq -d)
if [[ -n $dupes ]]; then
  echo "dice --help lists these commands twice: $dupes"
  status=1
fi
for c in $commands; do
  c=${c/_/ }
  grep -qE "dice $c([^a-z-]|$)" <<<"$docs" || { echo "dice $c: in dice --help, not in README.md or docs/"; status=1; }
done
helps=$("$node" --help; "$dice" --help; "$dice" test --help 2>&1; "$sim" --help)
# Options of other programs the docs mention: pytest's, the embedding example's.
others="--junitxml --project"
for o in $(grep -o '`--[a-z][a-z-]*' <<<"$docs" | tr -d '`' | sort -u); do
  [[ " $others " == *" $o "* ]] && continue
  grep -qE -- "$o([^a-z-]|$)" <<<"$helps" || { echo "$o: in the docs, in no --help"; status=1; }
done
((status == 0)) && echo "help and docs agree: $(wc -w <<<"$commands") commands"
exit $status
