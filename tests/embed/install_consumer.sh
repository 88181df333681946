#!/usr/bin/env bash
# Installs the build tree BUILD into a temporary prefix, then configures,
# builds and runs the consumer project SRC against it (find_package(dice)).
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d /tmp/dice-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" -j2 >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
out=$(timeout 60 "$tmp/build/dice-consumer")
echo "$out"
[[ $out == "consumer: reverse -> 'olleh'" ]]
