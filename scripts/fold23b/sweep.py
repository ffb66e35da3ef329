#!/usr/bin/env python3
"""fold23b: windows over upstream habits on the no-total offset routes (`drfnt`: DRF's offset service, `off`: the plain
offset service; `limit` 10), asked of two binaries side by side, cell by cell interleaved, each cell a list new to both
servers (`zz=`). Prints every cell whose answer differs, and counts: start 502 -> after 502 (kept), start 502 -> after
200 (an honest error lost), and the rest.
Usage: sweep.py BEFORE AFTER PORT [--habits ignores,capignores,...] [--seconds N]
(each server runs its built-in mock on PORT+1 / PORT+3; loopback only; servers stopped by their PIDs)."""
import argparse, os, sys, time, urllib.request, urllib.error

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fold23"))
from cells import start_server  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("before"); ap.add_argument("after"); ap.add_argument("port", type=int)
ap.add_argument("--habits", default="ignores")
ap.add_argument("--seconds", type=float, default=900)
ap.add_argument("--routes", default="drfnt")
a = ap.parse_args()

HABITS = {  # name: (query, totals)
    "ignores": ("mock_ignores=offset", [20, 50]),
    "ignoreslast": ("mock_ignores=offset&mock_past_end=last", [20, 50]),
    "capignores": ("mock_ignores=offset&mock_cap=4", [20, 50]),
    "shortignores": ("mock_ignores=offset", [5, 9]),
    "last": ("mock_past_end=last", [5, 10, 20]),
    "caplast": ("mock_cap=4&mock_past_end=last", [10, 20, 50]),
}


def start(binary, port, tag):
    return start_server(binary, port, f"/tmp/fold23b/sweep/{tag}{port}")


def ask(port, q):
    try:
        r = urllib.request.urlopen(f"http://127.0.0.1:{port}{q}", timeout=120)
        body = r.read().decode(); st = r.status; link = r.headers.get("Link") or ""
    except urllib.error.HTTPError as e:
        body = e.read().decode(); st = e.code; link = ""
    if st != 200:
        code = body.split('"code":"')[1].split('"')[0] if '"code":"' in body else body[:60]
        return (st, code)
    ids = [int(x.split(",")[0].split("}")[0]) for x in body.split('{"id":')[1:]]
    return (st, tuple(ids), "NEXT" if 'rel="next"' in link else "")


cells = []
for route in a.routes.split(","):
    for h in a.habits.split(","):
        q, totals = HABITS[h]
        for total in totals:
            for limit in (1, 5, 10):
                for offset in range(0, 50):
                    cells.append(f"/{route}?mock_total={total}&{q}&_offset={offset}&_limit={limit}")
            cells.append(f"/{route}?mock_total={total}&{q}")

pb, pa = start(a.before, a.port, "b"), start(a.after, a.port + 2, "a")
counts = {}
deadline = time.time() + a.seconds
try:
    for i, c in enumerate(cells):
        if time.time() > deadline:
            print("stopped at the time bound after", i, "cells"); break
        q = c + f"&zz=s{i}"
        b, af = ask(a.port, q), ask(a.port + 2, q)
        kind = ("502->502" if b[0] == 502 and af[0] == 502 else "502->200" if b[0] == 502 else
                "200->502" if af[0] == 502 else "same" if b == af else "200->other200")
        counts[kind] = counts.get(kind, 0) + 1
        if b != af:
            print(kind, c, "before", b, "after", af, flush=True)
finally:
    for p in (pb, pa):
        p.terminate(); p.wait(10)
print("cells", sum(counts.values()), counts)
