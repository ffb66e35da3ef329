#!/usr/bin/env python3
"""Lists the public symbols of a symbol graph that are declared in our sources but have no `///` comment of their own.

    python3 scripts/docc-undocumented.py SYMBOL_GRAPH_DIR MODULE

Exits 1 when there is any. A symbol counts as ours when the graph gives it a source location (members that come
from a protocol's default implementation, synthesized `!=`, `hashValue` and the like have none); a comment
inherited from a protocol (its module is not ours) does not count as documentation.
"""
import json
import pathlib
import sys

directory, module = sys.argv[1], sys.argv[2]
missing = []
for path in sorted(pathlib.Path(directory).glob(f"{module}*.symbols.json")):
    for symbol in json.loads(path.read_text())["symbols"]:
        location = symbol.get("location")
        if not location:
            continue
        comment = symbol.get("docComment") or {}
        own = comment.get("module", module) == module and any(line["text"].strip() for line in comment.get("lines", []))
        if not own:
            file = location["uri"].split("/Sources/", 1)[-1]
            line = location["position"]["line"] + 1
            missing.append(f"Sources/{file}:{line}: {'.'.join(symbol['pathComponents'])} ({symbol['kind']['displayName']})")
for entry in sorted(missing):
    print(entry)
print(f"{len(missing)} public symbol(s) of {module} without documentation", file=sys.stderr)
sys.exit(1 if missing else 0)
