#!/usr/bin/env python3
"""attack24: windows vs the merged answer on cursor, next-url, has-more, next-page-header, link-header and offset routes,
with variants per window: cached vs cold (ttl-0 route), NDJSON, _fields=id, HEAD (same head, no body), If-None-Match
(the GET's ETag -> 304), _fresh=1. Prints MISMATCH/ODD lines; bounded by --cases and --seconds.
Usage: windows.py --binary B [--cases 200] [--seconds 400] [--seed 1]
"""
import argparse, json, os, random, shutil, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_config, start_proxy, stop, get, parse_items, wait_port  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--cases", type=int, default=200)
ap.add_argument("--seconds", type=int, default=400)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--pp", type=int, default=18733)
ap.add_argument("--mock", type=int, default=18734)
ap.add_argument("--more", type=int, default=0)
ap.add_argument("--routes", default="slack,jsonapi,stripe,gitlab,github,drf,wrapped")
a = ap.parse_args()
cache = "/tmp/attack24/cache-win-%d" % a.pp
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack24/win-%d.json" % a.pp
M = "http://127.0.0.1:%d" % a.mock
ROUTES = {
    "slack": (M + "/slack/items", {"scheme": "cursor", "cursorPath": "response_metadata.next_cursor", "cursorParameter": "cursor", "sizeParameter": "limit", "pageSize": 10}, "members"),
    "jsonapi": (M + "/jsonapi/items", {"scheme": "next-url", "nextPath": "links.next", "totalItemsPath": "meta.total"}, "data"),
    "stripe": (M + "/stripe/items", {"scheme": "has-more", "pageSize": 10}, "data"),
    "gitlab": (M + "/gitlab/items", {"scheme": "next-page-header", "pageSize": 10}, ""),
    "github": (M + "/github/items", {"scheme": "link-header", "pageSize": 10}, ""),
    "drf": (M + "/drf/items/", {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "results"),
    "wrapped": (M + "/wrapped/items", {"scheme": "page-number", "pageSize": 10, "totalItemsPath": "total_count"}, "items"),
    "plain": (M + "/plain/items", {"scheme": "page-number", "pageSize": 10}, ""),
    "drfnt": (M + "/offset/items", {"scheme": "offset", "limit": 10}, ""),
    "auto": (M + "/github/items", {"scheme": "auto"}, ""),
    "autodrf": (M + "/drf/items/", {"scheme": "auto"}, ""),
    "slacknum": (M + "/slack/items?mock_cursor=number", {"scheme": "cursor", "cursorPath": "response_metadata.next_cursor", "cursorParameter": "cursor", "sizeParameter": "limit", "pageSize": 10}, "members"),
}
names = a.routes.split(",")
routes = []
for name in names:
    up, pag, items = ROUTES[name]
    for suffix, ttl in (("", 600), ("_truth", 0)):
        r = {"name": name + suffix, "upstream": up, "pagination": pag, "retries": 0, "ttlSeconds": ttl, "maxPages": 200}
        if items:
            r["items"] = items
        routes.append(r)
write_config(cfgp, a.pp, cache, routes)
c = json.load(open(cfgp)); c["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20}
json.dump(c, open(cfgp, "w"))
pp = start_proxy(a.binary, cfgp, a.pp, "/tmp/attack24/win-%d.log" % a.pp)
wait_port(a.mock)
rnd = random.Random(a.seed)
end = time.time() + a.seconds
stats = {}
def bump(k): stats[k] = stats.get(k, 0) + 1
def ids_of(st, h, body, nd):
    its, err = parse_items(st, h, body, nd)
    return [x.get("id") for x in its or []], err
try:
    for i in range(a.cases):
        if time.time() > end:
            break
        route = rnd.choice(names)
        n = rnd.choice([0, 1, 9, 10, 11, 20, 25, 37])
        mq = ["mock_total=%d" % n]
        if route not in ("drf", "jsonapi"):
            mq.append(rnd.choice(["per_page=10", "limit=10", ""]))
        if rnd.random() < 0.4:
            mq.append("mock_cap=%d" % rnd.choice([3, 7, 9]))
        if rnd.random() < 0.3:
            mq.append("mock_count_percent=%d" % rnd.choice([70, 110, 130]))
        if rnd.random() < 0.3:
            mq.append("mock_past_end=%s" % rnd.choice(["last", "empty", "404"]))
        if rnd.random() < 0.2:
            mq.append("mock_hide_every=%d" % rnd.choice([3, 5]))
        if rnd.random() < 0.15:
            mq.append("mock_show_every=2")
        if a.more and rnd.random() < 0.3:
            mq.append(rnd.choice(["mock_ignores=offset", "mock_ignores=limit", "mock_ignores=page", "mock_ignores=per_page", "mock_limit_floor=4", "mock_count_drift=-3", "mock_count_drift=3"]))
        mq = "&".join(x for x in mq if x)
        st, h, body = get(a.pp, "/%s_truth?%s" % (route, mq))
        if st != 200 or h.get("pageproxy-truncated") == "true":
            bump("merged_not_ok")
            continue
        merged = [x["id"] for x in json.loads(body)]
        for _ in range(3):
            o = rnd.choice([None, 0, 1, 5, 9, 10, 11, 19, 20, 24, 25, 36, 37, 40])
            l = rnd.choice([None, 1, 5, 10, 11, 20])
            if o is None and l is None:
                l = 5
            wq = ("_offset=%d" % o if o is not None else "") + ("&" if o is not None and l else "") + ("_limit=%d" % l if l else "")
            oo = o or 0
            want = merged[oo:oo + l] if l else merged[oo:]
            for variant in ("cached", "cold", "ndjson", "fields", "head", "inm", "fresh", "cached2"):
                r = route + ("_truth" if variant == "cold" else "")
                q = "%s&%s" % (mq, wq)
                nd = variant == "ndjson"
                if nd: q += "&_format=ndjson"
                if variant == "fields": q += "&_fields=id"
                if variant == "fresh": q += "&_fresh=1"
                target = "/%s?%s" % (r, q)
                if variant == "head":
                    st1, h1, b1 = get(a.pp, "/%s?%s" % (route, q))
                    st2, h2, b2 = get(a.pp, target, method="HEAD")
                    k1 = {k: v for k, v in h1.items() if k not in ("date", "pageproxy-cache", "pageproxy-upstream-ms", "pageproxy-duration-ms", "server-timing", "age", "pageproxy-pages-fetched", "pageproxy-pages-cached")}
                    k2 = {k: v for k, v in h2.items() if k in k1}
                    if st1 != st2 or k1.get("content-length") != h2.get("content-length") or k1.get("etag") != h2.get("etag") or k1.get("link") != h2.get("link"):
                        bump("head_diff"); print("HEAD-DIFF %s GET %d %s HEAD %d %s" % (target, st1, {k: k1.get(k) for k in ("content-length", "etag", "link")}, st2, {k: h2.get(k) for k in ("content-length", "etag", "link")}))
                    else: bump("head_ok")
                    continue
                if variant == "inm":
                    st1, h1, b1 = get(a.pp, "/%s?%s" % (route, q))
                    et = h1.get("etag")
                    if st1 != 200 or not et: bump("inm_noetag"); continue
                    st2, h2, b2 = get(a.pp, "/%s?%s" % (route, q), headers={"If-None-Match": et})
                    if st2 != 304: bump("inm_not304"); print("INM-NOT-304 %s -> %d %s" % (target, st2, b2[:100]))
                    else: bump("inm_ok")
                    continue
                st2, h2, body2 = get(a.pp, target)
                ids, err = ids_of(st2, h2, body2, nd)
                if err is not None:
                    bump("err_" + variant); print("WINDOW-ERR %s %s -> %s (merged %d)" % (variant, target, err[:140], len(merged)))
                elif ids != want and h2.get("pageproxy-truncated") == "true" and ids == want[:len(ids)] and ("_offset=%d&" % (oo + len(ids))) in h2.get("link", "").split('rel="prev"')[-1]:
                    bump("truncated_consistent")
                elif ids != want:
                    bump("mismatch_" + variant); print("MISMATCH %s %s -> %s want %s (merged %d)" % (variant, target, ids[:20], want[:20], len(merged)))
                else:
                    bump("ok")
                    link = h2.get("link", "")
                    if 'rel="next"' in link and oo + (l or 10**9) >= len(merged) and variant != "ndjson" and "count_percent=1" not in mq:
                        bump("next_past_end"); print("NEXT-PAST-END %s %s -> %s (merged %d)" % (variant, target, link, len(merged)))
        sys.stdout.flush()
finally:
    stop(pp)
print(stats)
