#!/usr/bin/env python3
"""attack20: `auto` on adversarial first pages, and unsolicited responses on reused keep-alive connections.

Usage: auto_stray.py --binary B [--part auto|stray|both]
Prints one line per case: status, seconds, upstream requests, items (first ids) and the error code.
"""
import argparse
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start_hostile, write_config, start_proxy, stop, get, parse_items  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--part", default="both")
ap.add_argument("--kinds", default="408idle,lateforge,dup")
ap.add_argument("--pp", type=int, default=18611)
ap.add_argument("--up", type=int, default=18621)
a = ap.parse_args()

cache = "/tmp/attack20/cache-auto"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack20/auto.json"
write_config(cfgp, a.pp, cache, [
    {"name": "auto", "upstream": "http://127.0.0.1:%d/auto" % a.up, "pagination": {"scheme": "auto"},
     "retries": 1, "totalTimeoutSeconds": 60},
    {"name": "stray", "upstream": "http://127.0.0.1:%d/stray" % a.up,
     "pagination": {"scheme": "page-number", "pageSize": 10}, "concurrency": 1, "retries": 2, "totalTimeoutSeconds": 60},
    {"name": "stray4", "upstream": "http://127.0.0.1:%d/stray" % a.up,
     "pagination": {"scheme": "page-number", "pageSize": 10, "lookahead": 3}, "concurrency": 4, "retries": 2,
     "totalTimeoutSeconds": 60},
])
up = start_hostile(a.up)
log = "/tmp/attack20/auto-proxy.log"
open(log, "w").close()
pp = start_proxy(a.binary, cfgp, a.pp, log)


def show(name, target, ndjson=False, headers=None):
    t0 = time.time()
    try:
        st, h, body = get(a.pp, target + ("&_format=ndjson" if ndjson and "?" in target else ("?_format=ndjson" if ndjson else "")),
                          headers=headers, timeout=90)
    except Exception as e:  # noqa
        print("%-28s EXC %s" % (name, e)); return None
    dt = time.time() - t0
    items, err = parse_items(st, h, body, ndjson)
    ids = [(x.get("id") if isinstance(x, dict) else x) for x in (items or [])]
    if ids and isinstance(items[0], dict) and "data" in items[0]:
        ids = [x["data"].get("id") for x in items]
    print("%-28s %s %3d %.2fs items=%d %s err=%s trunc=%s" % (name, "nd" if ndjson else "js", st, dt, len(ids), ids[:8],
          (err or "")[:140], h.get("pageproxy-truncated")))
    sys.stdout.flush()
    return ids, err, st


try:
    if a.part in ("auto", "both"):
        for kind in ["reddit_loop", "reddit_cycle", "cursor_same_items", "notion_loop", "has_more_true_nothing",
                     "has_more_same_last", "next_self", "next_cycle", "zendesk_more_lie", "after_num_items"]:
            for nd in (False, True):
                show("auto/" + kind, "/auto/%s/items" % kind, ndjson=nd)
    if a.part in ("stray", "both"):
        truth = list(range(60))
        for route in ("stray", "stray4"):
            for kind in a.kinds.split(","):
                for rnd in range(3):
                    for nd in (False, True):
                        r = show("%s/%s#%d" % (route, kind, rnd), "/%s/%s/items?_fresh=1" % (route, kind), ndjson=nd)
                        if r and r[1] is None and r[0] != truth:
                            print("   WRONG under 200:", r[0])
                        time.sleep(0.6)  # let idle connections receive the unsolicited bytes
finally:
    stop(pp); stop(up)
os.system("grep -c unsolicited %s; grep -i unsolicited %s | head -3 | cut -c1-400" % (log, log))
