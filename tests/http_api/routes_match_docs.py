#!/usr/bin/env python3
"""The HTTP API reference and the router agree: every route the node
serves (s.Get/Post/Put/Delete in actors/http_api/) is documented as
`METHOD /path` in README.md or docs/, and every route documented so is
served. A path parameter is `{name}` or an upper-case word in the docs, a
regex group in the code; a query string is left out of the comparison.
Usage: routes_match_docs.py SOURCE_DIR"""
import pathlib, re, sys

src = pathlib.Path(sys.argv[1])
METHODS = "GET|POST|PUT|DELETE|PATCH"

def norm(path):
    path = re.sub(r"\([^)]*\)", "{}", path.split("?")[0].rstrip("…"))
    segs = []
    for seg in path.split("/"):
        if re.fullmatch(r"\{[^}]*\}|[A-Z][A-Z0-9_]*", seg):
            seg = "{}"
        segs.append(seg)
    return "/".join(segs) or "/"

served = set()
for f in sorted((src / "actors" / "http_api").glob("*.cpp")):
    text = f.read_text()
    for m in re.finditer(r'\.(Get|Post|Put|Delete|Patch)\(\s*(?:R"\((.*?)\)"|"([^"]*)")', text):
        served.add((m.group(1).upper(), norm(m.group(2) or m.group(3))))

documented = set()
docs = [src / "README.md"] + sorted((src / "docs").glob("*.md"))
for f in docs:
    for m in re.finditer(rf"`((?:{METHODS})(?:/(?:{METHODS}))*) (/[^` ]*)", f.read_text()):
        for method in m.group(1).split("/"):
            documented.add((method, norm(m.group(2))))

status = 0
for method, path in sorted(served - documented):
    print(f"{method} {path}: served, not documented in README.md or docs/")
    status = 1
for method, path in sorted(documented - served):
    print(f"{method} {path}: documented, not served")
    status = 1
if not served:
    print("no routes found in actors/http_api/: the pattern no longer matches the router")
    status = 1
if status == 0:
    print(f"router and docs agree: {len(served)} routes")
sys.exit(status)
