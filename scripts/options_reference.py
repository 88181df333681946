#!/usr/bin/env python3
"""Writes docs/options.md, the reference of dice-node's options, from
`dice-node --help` (the options' one declaration: apps/dice-node), or with
--check says whether docs/options.md is what the binary's --help gives.
Usage: options_reference.py DICE_NODE DOCS/options.md [--check]"""
import re, subprocess, sys

HEADER = """# dice-node options

Every option of `dice-node`, as its `--help` gives them (this file is
written from it by `scripts/options_reference.py`; a test fails when the
two differ). Each may also be set in the INI file given by `--config`, as
`name = value` lines; the command line wins. How they fit together:
[running.md](running.md) (a node, its journal, the HTTP API),
[tasks.md](tasks.md) (task policies and retention),
[coordination.md](coordination.md) (elections, locks, events),
[observing.md](observing.md) (metrics, logs, the dashboard).

| option | default | what it does |
|---|---|---|
"""

def options(help_text):
    """(flag, default or None, description) per option, in --help's order."""
    rows = []
    for line in help_text.splitlines():
        m = re.match(r"^  (-\w \[ )?(--[a-z0-9-]+)( \])?( arg)?( \(=([^)]*)\))?(\s+(.*))?$", line)
        if m:
            rows.append([m.group(2), m.group(6), (m.group(8) or "").strip()])
        elif rows and re.match(r"^\s{20,}\S", line):
            rows[-1][2] = (rows[-1][2] + " " + line.strip()).strip()
    return rows

def cell(text):
    return text.replace("|", "\\|")

def render(help_text):
    out = HEADER
    for flag, default, what in options(help_text):
        d = f"`{cell(default)}`" if default is not None else ""
        out += f"| `{flag}` | {d} | {cell(what)} |\n"
    return out

def main():
    node, path = sys.argv[1], sys.argv[2]
    text = render(subprocess.run([node, "--help"], capture_output=True, text=True, check=True).stdout)
    if "--check" in sys.argv[3:]:
        try:
            current = open(path).read()
        except FileNotFoundError:
            current = ""
        if current != text:
            print(f"{path} differs from dice-node --help: run scripts/options_reference.py {node} {path}")
            return 1
        print(f"{path} matches dice-node --help: {text.count(chr(10) + '| `--')} options")
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0

if __name__ == "__main__":
    sys.exit(main())
