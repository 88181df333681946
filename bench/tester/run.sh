#!/usr/bin/env bash
# dice test beside pytest-xdist (bench.py says what it measures). Run it
# under the shared build lock:  flock /tmp/dice-build.lock bench/tester/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for p in python3-pytest python3-pytest-xdist python3-mpmath; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || {
    echo "run.sh: install $p first (scripts/setup --tests installs the first two; apt-get install python3-mpmath)" >&2
    exit 2
  }
done
exec /usr/bin/python3 "$here/bench.py" "$@"
