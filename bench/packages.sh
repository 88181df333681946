# Sourced by the side-by-side benchmarks' run.sh. install_missing PKG...
# installs the Debian packages among PKG not installed yet (apt-get, through
# sudo when not root) and fails if apt-get does. Where an init system runs,
# Debian may start system-wide redis or beanstalkd services on install; the
# benchmarks neither use nor stop them.
install_missing() {
  local p sudo="" missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  ((EUID == 0)) || sudo=sudo
  echo "installing ${missing[*]}"
  $sudo apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}
