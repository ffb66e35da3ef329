#!/usr/bin/env python3
"""attack20: windows against the merged answer of the same list, on the built-in mock's habits.

Random mock habits (mock_total, mock_cap, mock_count_percent, mock_past_end=last, mock_hide_every) on offset (drf),
page-number (plain) and link-header (github) routes; for each, the merged answer through a ttl-0 route, then windows
through a cached route. A window answered 200 that is not the merged answer's slice (merged 200 and not Truncated)
is printed as MISMATCH. Bounded by --cases and --seconds.
Usage: window_vs_merged.py --binary B [--cases 300] [--seconds 300] [--seed 1]
(scratch: $ATTACK_SCRATCH, default /tmp/attack20; give each run its own, with its own --pp/--mock ports)
"""
import argparse, json, os, random, shutil, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SCRATCH, write_config, start_proxy, stop, get, parse_items, wait_port  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--cases", type=int, default=300)
ap.add_argument("--seconds", type=int, default=300)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--pp", type=int, default=18633)
ap.add_argument("--mock", type=int, default=18634)
a = ap.parse_args()
os.makedirs(SCRATCH, exist_ok=True)
cache = os.path.join(SCRATCH, "cache-wvm")
shutil.rmtree(cache, ignore_errors=True)
cfgp = os.path.join(SCRATCH, "wvm.json")
M = "http://127.0.0.1:%d" % a.mock
routes = []
for name, up, pag, items in (
        ("drf", M + "/drf/items/", {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "results"),
        ("plain", M + "/plain/items", {"scheme": "page-number", "pageSize": 10}, ""),
        ("github", M + "/github/items", {"scheme": "link-header", "pageSize": 10}, "")):
    for suffix, ttl in (("", 600), ("_truth", 0)):
        r = {"name": name + suffix, "upstream": up, "pagination": pag, "retries": 0, "ttlSeconds": ttl, "maxPages": 200}
        if items:
            r["items"] = items
        routes.append(r)
write_config(cfgp, a.pp, cache, routes)
c = json.load(open(cfgp)); c["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20}
json.dump(c, open(cfgp, "w"))
pp = start_proxy(a.binary, cfgp, a.pp, os.path.join(SCRATCH, "wvm.log"))
wait_port(a.mock)
rnd = random.Random(a.seed)
end = time.time() + a.seconds
stats = {"ok": 0, "mismatch": 0, "window_err": 0, "merged_not_ok": 0}
try:
    for i in range(a.cases):
        if time.time() > end:
            break
        route = rnd.choice(["drf", "drf", "plain", "github"])
        n = rnd.choice([9, 10, 20, 25, 37, 41])
        mq = ["mock_total=%d" % n, "per_page=10" if route != "drf" else ""]
        if rnd.random() < 0.6:
            mq.append("mock_cap=%d" % rnd.choice([3, 6, 7, 9]))
        if rnd.random() < 0.5:
            mq.append("mock_count_percent=%d" % rnd.choice([70, 85, 95, 110, 130]))
        if rnd.random() < 0.4:
            mq.append("mock_past_end=last")
        if rnd.random() < 0.25:
            mq.append("mock_hide_every=%d" % rnd.choice([4, 5]))
        mq = "&".join(x for x in mq if x)
        st, h, body = get(a.pp, "/%s_truth?%s" % (route, mq))
        if st != 200 or h.get("pageproxy-truncated") == "true":
            stats["merged_not_ok"] += 1
            continue
        merged = [x["id"] for x in json.loads(body)]
        for _ in range(4):
            o = rnd.choice([0, 3, 5, 9, 10, 12, 13, 17, 20, 24, 25, 30, 36, 37, 40, 45])
            l = rnd.choice([None, 1, 5, 10, 20])
            fmt = rnd.choice(["json", "ndjson"])
            wq = "_offset=%d" % o + ("&_limit=%d" % l if l else "") + ("&_format=ndjson" if fmt == "ndjson" else "")
            target = "/%s?%s&%s" % (route, mq, wq)
            st2, h2, body2 = get(a.pp, target)
            its, err = parse_items(st2, h2, body2, fmt == "ndjson")
            ids = [x.get("id") for x in its or []]
            want = merged[o:o + l] if l else merged[o:]
            if err is not None:
                stats["window_err"] += 1
                if fmt == "json":
                    print("WINDOW-ERR %s -> %s (merged %d items)" % (target, err[:140], len(merged)))
            elif ids != want:
                stats["mismatch"] += 1
                print("MISMATCH %s -> %s want %s (merged %d)" % (target, ids[:30], want[:30], len(merged)))
            else:
                stats["ok"] += 1
        sys.stdout.flush()
finally:
    stop(pp)
print(stats)
