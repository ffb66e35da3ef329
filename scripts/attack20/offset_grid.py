#!/usr/bin/env python3
"""attack20: offset lists that lie (caps, totals, past-end pages, floored offsets) x windows x formats.

A 200 (or an NDJSON stream with no error line) whose items are not the expected slice of the upstream's list 0..N-1
is printed as WRONG. Bounded: --cases random variants, --seconds wall time.
Usage: offset_grid.py --binary B [--cases 400] [--seconds 420] [--seed 1]
"""
import argparse
import os
import random
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start_hostile, write_config, start_proxy, stop, get, parse_items  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--cases", type=int, default=400)
ap.add_argument("--seconds", type=int, default=420)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--pp", type=int, default=18610)
ap.add_argument("--up", type=int, default=18620)
ap.add_argument("--only", default="", help="N/cap/total/past/floor to run alone")
a = ap.parse_args()

os.makedirs("/tmp/attack20", exist_ok=True)
cache = "/tmp/attack20/cache-offset"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack20/offset.json"
write_config(cfgp, a.pp, cache, [
    {"name": "off", "upstream": "http://127.0.0.1:%d/off" % a.up,
     "pagination": {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "items": "results",
     "concurrency": 4, "retries": 0, "maxPages": 60},
])
up = start_hostile(a.up)
pp = start_proxy(a.binary, cfgp, a.pp, "/tmp/attack20/offset-proxy.log")

rnd = random.Random(a.seed)
Ns = [0, 1, 9, 10, 11, 20, 25, 30, 37]
caps = ["0", "0", "3", "7", "10", "ign"]
totals = ["none", "true", "true", "+1", "-1", "+10", "-3"]
pasts = ["empty", "last", "404"]
floors = ["no", "no", "no", "10", "7", "20", "5"]


def windows(n):
    w = [("", None), ("_offset=0&_limit=5", (0, 5)), ("_offset=5&_limit=10", (5, 10)), ("_offset=15&_limit=10", (15, 10)),
         ("_offset=%d&_limit=10" % max(0, n - 3), (max(0, n - 3), 10)), ("_offset=25&_limit=5", (25, 5)),
         ("_offset=%d" % n, (n, None)), ("_offset=13", (13, None)), ("_max_items=13", (0, 13)), ("_max_pages=2", "prefix")]
    return w


stats = {"ok": 0, "err": 0, "wrong": 0}
end = time.time() + a.seconds
done = 0
wrong_lines = []
try:
    for i in range(a.cases):
        if time.time() > end:
            break
        if a.only:
            n, cap, total, past, floor = a.only.split("/")
            n = int(n)
        else:
            n = rnd.choice(Ns); cap = rnd.choice(caps); total = rnd.choice(totals); past = rnd.choice(pasts)
            floor = rnd.choice(floors)
        truth = list(range(n))
        honest = cap in ("0", "10") and total in ("none", "true") and floor == "no"
        wl = windows(n)
        rnd.shuffle(wl)
        for q, exp in wl[:5] if not a.only else wl:
            for fmt in ("json", "ndjson", "json"):
                path = "/off/%d/%s/%s/%s/%s/items" % (n, cap, total, past, floor)
                target = path + "?" + "&".join(x for x in (q, "_format=ndjson" if fmt == "ndjson" else "") if x)
                try:
                    st, h, body = get(a.pp, target)
                except Exception as e:  # noqa
                    print("EXC", target, e); stats["err"] += 1; continue
                items, err = parse_items(st, h, body, fmt == "ndjson")
                ids = [x.get("id") if isinstance(x, dict) else x for x in (items or [])]
                if exp is None:
                    want = truth
                elif exp == "prefix":
                    want = truth[:len(ids)]
                else:
                    o, l = exp
                    want = truth[o:o + l] if l else truth[o:]
                if err is None and ids == want:
                    stats["ok"] += 1
                elif err is not None and (fmt == "json" or ids == want[:len(ids)]):
                    stats["err"] += 1
                    if honest:
                        print("ERR-ON-HONEST", target, err[:160])
                else:
                    stats["wrong"] += 1
                    line = "WRONG %s status=%d err=%s got=%s want=%s trunc=%s total=%s" % (
                        target, st, (err or "")[:100], ids[:40], want[:40], h.get("pageproxy-truncated"),
                        h.get("pageproxy-total"))
                    print(line)
                    wrong_lines.append(line)
                done += 1
        sys.stdout.flush()
finally:
    stop(pp); stop(up)
print("requests", done, stats)
