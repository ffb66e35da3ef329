#!/usr/bin/env python3
"""attack24: windows over upstreams that serve another page size than the route asks (mock_ignores of the size
parameter: the mock's default 20 where the route asks 10; mock_limit_floor: at least N), every offset 0..total+2 and
limits 1, 5, 10, 20, against the merged answer (ttl-0 route). Prints MISMATCH (a 200 that is not the merged slice and
not a consistent Truncated prefix). Usage: size_grid.py --binary B [--seconds 300]
"""
import argparse, json, os, shutil, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SCRATCH, write_config, start_proxy, stop, get, parse_items, wait_port  # noqa
ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--seconds", type=int, default=300)
ap.add_argument("--pp", type=int, default=18911)
ap.add_argument("--mock", type=int, default=18912)
a = ap.parse_args()
cache = os.path.join(SCRATCH, "cache-size"); shutil.rmtree(cache, ignore_errors=True)
cfgp = os.path.join(SCRATCH, "size.json")
M = "http://127.0.0.1:%d" % a.mock
R = {"plain": (M + "/plain/items", {"scheme": "page-number", "pageSize": 10}, ""),
     "wrapped": (M + "/wrapped/items", {"scheme": "page-number", "pageSize": 10, "totalItemsPath": "total_count"}, "items"),
     "drfnt": (M + "/offset/items", {"scheme": "offset", "limit": 10}, "items"),
     "drf": (M + "/drf/items/", {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "results")}
routes = []
for name, (up, pag, items) in R.items():
    for suffix, ttl in (("", 600), ("_truth", 0)):
        r = {"name": name + suffix, "upstream": up, "pagination": pag, "retries": 0, "ttlSeconds": ttl, "maxPages": 200}
        if items: r["items"] = items
        routes.append(r)
write_config(cfgp, a.pp, cache, routes)
c = json.load(open(cfgp)); c["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20}
json.dump(c, open(cfgp, "w"))
pp = start_proxy(a.binary, cfgp, a.pp, os.path.join(SCRATCH, "size.log")); wait_port(a.mock)
end = time.time() + a.seconds
stats = {}
def bump(k): stats[k] = stats.get(k, 0) + 1
habits = {"plain": ["mock_ignores=per_page", "mock_limit_floor=15", "mock_ignores=per_page&mock_past_end=404", "mock_ignores=per_page&mock_past_end=last"],
          "wrapped": ["mock_ignores=per_page", "mock_limit_floor=15"],
          "drfnt": ["mock_ignores=limit", "mock_limit_floor=15", "mock_ignores=limit&mock_past_end=last"],
          "drf": ["mock_ignores=limit", "mock_limit_floor=15"]}
try:
    for route, hs in habits.items():
        for h in hs:
            for n in (9, 10, 20, 25, 30, 37, 45, 50, 61):
                if time.time() > end: raise SystemExit
                mq = "mock_total=%d&%s" % (n, h)
                st, hd, body = get(a.pp, "/%s_truth?%s" % (route, mq))
                if st != 200 or hd.get("pageproxy-truncated") == "true":
                    bump("merged_not_ok"); print("MERGED %d %s %s" % (st, route, mq)); continue
                merged = [x["id"] for x in json.loads(body)]
                bad_here = 0
                for o in range(0, n + 3):
                    for l in (1, 5, 10, 20):
                        t = "/%s?%s&_offset=%d&_limit=%d" % (route, mq, o, l)
                        st2, h2, b2 = get(a.pp, t)
                        its, err = parse_items(st2, h2, b2, False)
                        want = merged[o:o + l]
                        if err: bump("err"); print("ERR %s -> %s" % (t, err[:120])); continue
                        ids = [x["id"] for x in its]
                        if ids == want: bump("ok")
                        elif h2.get("pageproxy-truncated") == "true" and ids == want[:len(ids)]: bump("truncated_prefix")
                        else:
                            bump("MISMATCH"); bad_here += 1
                            if bad_here <= 3: print("MISMATCH %s -> %s want %s (merged %d)" % (t, ids[:12], want[:12], len(merged)))
                if bad_here > 3: print("   ... %d mismatches for %s %s" % (bad_here, route, mq))
                sys.stdout.flush()
finally:
    stop(pp)
    print(stats)
