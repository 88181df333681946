#!/usr/bin/env python3
"""Writes /etc/dice/dice-node.conf of the Debian package from `dice-node
--help`: every option dice-node takes in its INI file, with its default and
what it does, commented out, so the file dice-node reads with --config
cannot drift from the binary. The options are read from --help by
scripts/options_reference.py, the parser that also writes docs/options.md.
Usage: make_conf.py DICE_NODE OUT"""
import os, re, subprocess, sys, textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from options_reference import options  # noqa: E402

# Options that make no sense in the file dice-node reads.
COMMAND_LINE_ONLY = {"--help", "--version", "--config"}

# Where the package suggests a file an option names: files under /etc/dice
# that the dice user can read (root:dice, mode 640). Each must be an option
# of --help, or this script fails.
SUGGESTED = {
    "--cluster-key-file": "/etc/dice/cluster.key",
    "--http-token-file": "/etc/dice/http.token",
}

HEADER = """\
# /etc/dice/dice-node.conf: the options of dice-node, read by
# dice-node.service (dice-node --config /etc/dice/dice-node.conf).
#
# Every option dice-node {version} takes is below, commented out at its
# default, as `dice-node --help` gives them (this file is written from it
# when the package is built). Uncomment a line and change it to set an
# option: `name = value`, one per line; a repeatable option (peer,
# shell-allow) may appear on several lines. Options given on the command
# line win over this file. After a change: systemctl restart dice-node
#
# Several nodes on this host: dice-node@NAME.service reads
# /etc/dice/dice-node-NAME.conf (a copy of this file with its own id and
# ports) and keeps its journal in /var/lib/dice/NAME.
#
# The service runs as user dice with a read-only /etc: key and token files
# belong in /etc/dice, owned root:dice with mode 640, e.g.
#   head -c 32 /dev/urandom > /etc/dice/cluster.key  (the same on every member)
#   chown root:dice /etc/dice/cluster.key; chmod 640 /etc/dice/cluster.key
# With the default data-dir (auto) the service keeps its journal in
# /var/lib/dice/CLUSTER/ID.
"""


def is_switch(help_text, flag):
    """A flag that takes no value (--insecure): true or false in this file."""
    line = re.search(r"^  (-\w \[ )?" + re.escape(flag) + r"( \])?(?P<arg> arg)?", help_text, re.M)
    return line is not None and line.group("arg") is None


def render(help_text, version):
    rows = [r for r in options(help_text) if r[0] not in COMMAND_LINE_ONLY]
    names = {r[0] for r in rows}
    unknown = sorted(set(SUGGESTED) - names)
    if unknown:
        raise SystemExit(f"make_conf.py: not options of dice-node --help: {', '.join(unknown)}")
    if len(rows) < 10:
        raise SystemExit(f"make_conf.py: only {len(rows)} options read from dice-node --help")
    out = [HEADER.format(version=version).rstrip("\n")]
    for flag, default, what in rows:
        name = flag[2:]
        out.append("")
        out += textwrap.wrap(what, 76, initial_indent="# ", subsequent_indent="# ",
                             break_on_hyphens=False)
        if default is not None and "(default: " in what:
            out.append("# (the value below is the build machine's; commented out, the default")
            out.append("# is this machine's)")
        if flag in SUGGESTED:
            out.append(f"# (the package suggests {SUGGESTED[flag]})")
        if is_switch(help_text, flag):
            value = "false"
        else:
            value = default if default is not None else ""
        out.append(f"#{name} = {value}".rstrip())
    return "\n".join(out) + "\n"


def main():
    node, path = sys.argv[1], sys.argv[2]
    help_text = subprocess.run([node, "--help"], capture_output=True, text=True, check=True).stdout
    version = subprocess.run([node, "--version"], capture_output=True, text=True,
                             check=True).stdout.split()[-1]
    text = render(help_text, version)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
