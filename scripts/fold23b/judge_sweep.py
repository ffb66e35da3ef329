#!/usr/bin/env python3
"""Judges the cells sweep.py printed (those whose answers differ): right = the truth (ids 1..total sliced; a 502 for
an upstream that ignores the offset), items only; NEXT noted apart. Usage: judge_sweep.py SWEEP_OUTPUT (the lines sweep.py printed; fix25)"""
import ast, re, sys, urllib.parse
counts = {}
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+) (\S+) before (\(.*\)) after (\(.*\))$", line.strip())
    if not m: continue
    kind, cell, b, a = m.group(1), m.group(2), ast.literal_eval(m.group(3)), ast.literal_eval(m.group(4))
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(cell).query)
    total = int(q["mock_total"][0]); ignores = "mock_ignores" in q
    off = int(q.get("_offset", ["0"])[0]); lim = int(q.get("_limit", [str(10**9)])[0])
    truth = 502 if ignores else tuple(range(off + 1, min(total, off + lim) + 1))
    def right(x):
        if truth == 502: return x[0] == 502
        return x[0] == 200 and x[1] == truth
    def nexts(x):
        return x[0] == 200 and len(x) > 2 and x[2] == "NEXT"
    v = ("right" if right(b) else "wrong") + "->" + ("right" if right(a) else "wrong")
    counts[v] = counts.get(v, 0) + 1
    extra = ""
    if right(b) and right(a) and nexts(b) != nexts(a): extra = " (next " + ("lost" if nexts(b) else "added") + ")"
    if v != "wrong->right" or extra: print(v + extra, cell, "before", b, "after", a)
print(counts)
