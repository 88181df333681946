#!/usr/bin/env bash
# The Debian packages of cmake/dice_package.cmake, as a user gets them:
# builds them if stale (cmake --build BUILD --target package_deb), unpacks
# the dice package with dpkg-deb -x into a scratch directory, checks its
# files and control data (and dice-dev's), runs lintian on both (no error
# may remain), verifies the unit files with systemd-analyze when there is
# one, then starts the unpacked dice-node with the unpacked
# /etc/dice/dice-node.conf, only its data dir and ports overridden, and asks
# it for its nodes with the unpacked dice. Once more with every default of
# the config file uncommented, which dice-node must take as it is.
# Usage: package_test.sh BUILD SRC DICE_DEB DICE_DEV_DEB
set -euo pipefail
build=$1 src=$2 deb=$3 dev_deb=$4

tmp=$(mktemp -d /tmp/dice-package.XXXXXX)
node_pid=""
stop_node() {
  [[ -n $node_pid ]] || return 0
  kill -TERM "$node_pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$node_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$node_pid" 2>/dev/null || true
  wait "$node_pid" 2>/dev/null || true
  node_pid=""
}
trap 'stop_node; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in dpkg-deb lintian python3 readelf; do
  command -v "$tool" >/dev/null || fail "$tool missing (scripts/setup --tests installs it)"
done

# 1. The packages, made again only if something they hold changed.
cmake --build "$build" -j2 --target package_deb >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "cmake --build --target package_deb"; }
[[ -f $deb && -f $dev_deb ]] || fail "no $deb or $dev_deb after the build"
echo "packages: $(basename "$deb") $(basename "$dev_deb")"

# 2. Control data.
[[ $(dpkg-deb -f "$deb" Package) == dice ]] || fail "main package not named dice"
[[ $(dpkg-deb -f "$dev_deb" Package) == dice-dev ]] || fail "dev package not named dice-dev"
dpkg-deb -f "$deb" Depends | grep -c '\badduser\b' >/dev/null || fail "dice does not depend on adduser"
dpkg-deb -f "$deb" Depends | grep -c 'libcaf-core' >/dev/null || fail "dice's Depends lack its shared libraries"
mkdir "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
grep -qx /etc/dice/dice-node.conf "$tmp/control/conffiles" || fail "dice-node.conf is not a conffile"
for s in postinst prerm postrm; do
  [[ -x $tmp/control/$s ]] || fail "no executable $s"
  sh -n "$tmp/control/$s" || fail "$s: shell syntax"
done
grep -q 'adduser --system' "$tmp/control/postinst" || fail "postinst creates no system user"
grep -q 'chown dice:dice /var/lib/dice' "$tmp/control/postinst" || fail "postinst does not give /var/lib/dice to dice"

# 3. Files: where the package says they are, and in the unpacked tree.
root=$tmp/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$tmp/list"
expect=(
  /usr/bin/dice-node /usr/bin/dice /usr/bin/dice-sim
  /usr/share/man/man1/dice-node.1.gz /usr/share/man/man1/dice.1.gz /usr/share/man/man1/dice-sim.1.gz
  /etc/dice/dice-node.conf
  /lib/systemd/system/dice-node.service /lib/systemd/system/dice-node@.service
  /usr/share/doc/dice/copyright /usr/share/doc/dice/changelog.Debian.gz
)
for f in "${expect[@]}"; do
  grep -qx "$f" "$tmp/list" || fail "$f not listed in $(basename "$deb")"
  [[ -f $root$f ]] || fail "$f not unpacked"
done
for p in dice-node dice dice-sim; do
  [[ -x $root/usr/bin/$p ]] || fail "/usr/bin/$p not executable"
  if readelf -S "$root/usr/bin/$p" | grep -cE '\.(symtab|debug_info)\b' >/dev/null; then
    fail "/usr/bin/$p is not stripped"
  fi
  gzip -t "$root/usr/share/man/man1/$p.1.gz" || fail "$p.1.gz is not gzip"
  zcat "$root/usr/share/man/man1/$p.1.gz" | grep -c "^\.TH \"\?${p^^}\"\? " >/dev/null ||
    fail "$p.1.gz is not a man page of $p"
done
zcat "$root/usr/share/man/man1/dice-node.1.gz" | grep -c -- 'cluster\\-key\\-file' >/dev/null ||
  fail "dice-node.1 lacks the options of --help"
if grep -E '^/usr/(include|lib/cmake)' "$tmp/list"; then fail "dice holds dice-dev's files"; fi
dpkg-deb -c "$dev_deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$tmp/dev_list"
for f in /usr/include/dice/dice.hpp /usr/include/dice/node.hpp /usr/lib/libdice_embed.a \
         /usr/lib/cmake/dice/dice-config.cmake /usr/lib/cmake/dice/dice-targets.cmake \
         /usr/share/doc/dice-dev/copyright; do
  grep -qx "$f" "$tmp/dev_list" || fail "$f not in $(basename "$dev_deb")"
done
if grep -E '^/(usr/bin|etc|lib/systemd)/' "$tmp/dev_list"; then fail "dice-dev holds dice's files"; fi

# 4. The config file: every option of the unpacked dice-node's --help, at
# its default and commented out; nothing set.
conf=$root/etc/dice/dice-node.conf
"$root/usr/bin/dice-node" --help >"$tmp/help.txt"
python3 - "$src/scripts" "$tmp/help.txt" "$conf" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[1])
from options_reference import options
help_text, conf = open(sys.argv[2]).read(), open(sys.argv[3]).read()
if re.search(r"^[^#\s]", conf, re.M):
    sys.exit("dice-node.conf sets an option: every line should be a comment")
rows = [r for r in options(help_text) if r[0] not in ("--help", "--version", "--config")]
missing = []
for flag, default, _ in rows:
    name = flag[2:]
    line = re.search(r"^#" + re.escape(name) + r" =(?: (.*))?$", conf, re.M)
    if not line:
        missing.append(name)
    elif default is not None and line.group(1) != default:
        missing.append(f"{name} (default {default}, file {line.group(1)})")
if missing:
    sys.exit("dice-node.conf lacks or misstates: " + ", ".join(missing))
print(f"dice-node.conf: {len(rows)} options, each at its default")
PY

# 5. The unit files.
units=$root/lib/systemd/system
grep -qx 'ExecStart=/usr/bin/dice-node --config /etc/dice/dice-node.conf' "$units/dice-node.service" ||
  fail "dice-node.service does not run dice-node --config /etc/dice/dice-node.conf"
grep -q '^ExecStart=/usr/bin/dice-node --config /etc/dice/dice-node-%i.conf ' "$units/dice-node@.service" ||
  fail "dice-node@.service does not read /etc/dice/dice-node-%i.conf"
grep -qx 'StateDirectory=dice/%i' "$units/dice-node@.service" || fail "dice-node@ has no state dir of its own"
for u in dice-node.service dice-node@.service; do
  for key in User=dice NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes \
             Restart=on-failure; do
    grep -qx "$key" "$units/$u" || fail "$u lacks $key"
  done
done
if command -v systemd-analyze >/dev/null && [[ -d /lib/systemd/system ]]; then
  # A root holding the system's units (the targets these refer to), the
  # package's units and its dice-node where the units expect them.
  sroot=$tmp/sroot
  mkdir -p "$sroot/lib/systemd" "$sroot/usr/bin"
  cp -a /lib/systemd/system "$sroot/lib/systemd/"
  cp "$units"/dice-node*.service "$sroot/lib/systemd/system/"
  cp "$root/usr/bin/dice-node" "$sroot/usr/bin/"
  cp "$units/dice-node@.service" "$sroot/lib/systemd/system/dice-node@check.service"
  out=$(systemd-analyze verify --root="$sroot" --man=no dice-node.service dice-node@check.service 2>&1) ||
    { echo "$out"; fail "systemd-analyze verify"; }
  [[ -z $out ]] || { echo "$out"; fail "systemd-analyze verify has remarks"; }
  echo "systemd-analyze verify: dice-node.service, dice-node@.service: clean"
else
  echo "systemd-analyze not available: unit files not verified"
fi

# 6. The sample configs name files under /etc/dice, the package's config
# directory.
while IFS= read -r path; do
  [[ $path == /etc/dice/* ]] || fail "apps/configs names $path outside /etc/dice"
  [[ -d $root$(dirname "$path") ]] || fail "$path: $(dirname "$path") is not in the package"
done < <(grep -ho '/etc/[^ ]*' "$src"/apps/configs/*.ini)

# 7. lintian: no error on either package.
lintian_out=$(lintian --fail-on error "$deb" "$dev_deb" 2>&1) ||
  { echo "$lintian_out"; fail "lintian reports errors"; }
echo "lintian: ${lintian_out:-clean}"

# 8. The unpacked node, run from the unpacked config file.
free_ports() {  # N free 127.0.0.1 ports, UDP and TCP alike
  python3 - "$1" <<'PY'
import socket, sys
held, ports = [], []
while len(ports) < int(sys.argv[1]):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
    port = u.getsockname()[1]
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        t.bind(("127.0.0.1", port))
    except OSError:
        u.close(); t.close(); continue
    held += [u, t]; ports.append(port)
print(" ".join(map(str, ports)))
PY
}
run_node() {  # CONF NAME: starts the node, waits until `dice nodes` answers
  local conf=$1 name=$2 udp http
  read -r udp http < <(free_ports 2)
  "$root/usr/bin/dice-node" --config "$conf" --data-dir "$tmp/data-$name" \
      --listen "127.0.0.1:$udp" --http "127.0.0.1:$http" >"$tmp/$name.log" 2>&1 &
  node_pid=$!
  local answer=""
  for _ in $(seq 1 100); do
    kill -0 "$node_pid" 2>/dev/null || { cat "$tmp/$name.log"; fail "$name: dice-node exited"; }
    if answer=$("$root/usr/bin/dice" --node "http://127.0.0.1:$http" --json nodes 2>/dev/null); then
      break
    fi
    answer=""
    sleep 0.2
  done
  [[ -n $answer ]] || { cat "$tmp/$name.log"; fail "$name: dice nodes got no answer in 20 s"; }
  python3 -c '
import json, sys
a = json.loads(sys.argv[1])
me = [n for n in a["nodes"] if n["id"] == a["self"]]
assert me and me[0]["state"] == "alive", a
print(sys.argv[2] + ": dice nodes answers, " + a["self"] + " alive")' "$answer" "$name"
  [[ -d $tmp/data-$name ]] || fail "$name: no journal in its --data-dir"
  stop_node
}
run_node "$conf" node
# Every default of the file uncommented: dice-node takes each as it is.
sed -E 's/^#([a-z][a-z0-9-]*) = (.+)$/\1 = \2/' "$conf" >"$tmp/uncommented.conf"
grep -qx 'heartbeat-ms = 400' "$tmp/uncommented.conf" || fail "uncommenting the defaults did nothing"
run_node "$tmp/uncommented.conf" uncommented
echo "package test passed"
