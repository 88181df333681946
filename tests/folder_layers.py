#!/usr/bin/env python3
"""The folders of actors/ are layers: no folder imports, through any chain
of #include "folder/...", a folder that imports it back. Prints the layers
bottom-up (each folder imports only folders of lower layers), or the cycle.
Usage: folder_layers.py SOURCE_DIR"""
import pathlib, re, sys

actors = pathlib.Path(sys.argv[1]) / "actors"
folders = sorted(p.name for p in actors.iterdir() if p.is_dir())
imports = {f: set() for f in folders}
for f in folders:
    for src in (actors / f).rglob("*"):
        if src.suffix in (".hpp", ".cpp"):
            for m in re.finditer(r'#include "([a-z_]+)/', src.read_text()):
                if m.group(1) != f and m.group(1) in imports:
                    imports[f].add(m.group(1))

layers, placed = [], set()
while len(placed) < len(folders):
    layer = [f for f in folders if f not in placed and imports[f] <= placed]
    if not layer:
        rest = {f: sorted(imports[f] - placed) for f in folders if f not in placed}
        print("a cycle among these folders (each with the unplaced folders it imports):")
        for f, deps in rest.items():
            print(f"  {f} -> {', '.join(deps)}")
        sys.exit(1)
    layers.append(layer)
    placed |= set(layer)
for i, layer in enumerate(layers):
    print(f"layer {i}: {' '.join(layer)}")
print(f"{len(folders)} folders in {len(layers)} layers, "
      f"{sum(len(v) for v in imports.values())} folder imports, no cycle")
