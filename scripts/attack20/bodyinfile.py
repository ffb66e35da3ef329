#!/usr/bin/env python3
"""attack20: an offset upstream that ignores `limit` (serves 15 a page under limit=10) is a 502 on a walk of fresh
pages (SteppedPageOverlap), but the check skips pages whose body is left in the cache's file (merged answer, no
`_fields`, after a restart). Warm each page by itself (the client's own `?offset=N` with `_max_pages=1`: four 200s),
restart, ask the whole list merged.
Expected: 502 pagination_stuck (as without the cache), or the 37 items once. Seen: see the printout.
Usage: bodyinfile.py --binary B [--restart 1|0] [--variant ign|mock]
"""
import argparse, json, os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start_hostile, write_config, start_proxy, stop, get, parse_items  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--restart", type=int, default=1)
ap.add_argument("--total", default="none")
ap.add_argument("--sff", type=int, default=1, help="cache.sendFromFiles")
ap.add_argument("--pp", type=int, default=18615)
ap.add_argument("--up", type=int, default=18625)
a = ap.parse_args()
cache = "/tmp/attack20/cache-bif"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack20/bif.json"
write_config(cfgp, a.pp, cache, [
    {"name": "off", "upstream": "http://127.0.0.1:%d/off" % a.up,
     "pagination": {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "items": "results", "ttlSeconds": 600}])
if a.sff:
    c = json.load(open(cfgp)); c["cache"]["sendFromFiles"] = True; json.dump(c, open(cfgp, "w"))
up = start_hostile(a.up)
log = "/tmp/attack20/bif-proxy.log"
open(log, "w").close()
path = "/off/37/h12/%s/empty/no/items" % a.total
TRUTH = [i for i in range(37) if i % 4 != 3]


def ask(tag, target, nd=False):
    st, h, body = get(a.pp, target)
    items, err = parse_items(st, h, body, nd)
    ids = [x.get("id") for x in items or []]
    dup = len(ids) - len(set(ids))
    print("%-22s %-40s st=%d n=%d dups=%d cache=%s err=%s" % (tag, target[len(path):], st, len(ids), dup,
          h.get("pageproxy-cache"), (err or "")[:120]))
    return st, ids, err


try:
    pp = start_proxy(a.binary, cfgp, a.pp, log)
    ask("fresh walk", path)
    ask("warm first page", path + "?_max_pages=1")
    for off in range(9, 45, 9):
        ask("warm one page", path + "?offset=%d&limit=9&_max_pages=1" % off)
    if a.restart:
        stop(pp)
        pp = start_proxy(a.binary, cfgp, a.pp, log)
    st, ids, err = ask("whole list, merged", path)
    if st == 200 and err is None and ids != TRUTH:
        print("WRONG under 200:", ids)
    ask("whole list, ndjson", path + "?_format=ndjson", nd=True)
    ask("whole list, _fields", path + "?_fields=id")
    stop(pp)
finally:
    stop(up)
