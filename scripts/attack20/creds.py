#!/usr/bin/env python3
"""attack20: NDJSON/merged answers from persisted answer entries must never cross credentials or list versions.

The upstream echoes each page's Authorization and a version read from /tmp/attack20/echo-version into every item.
Warm with credentials A (NDJSON and merged), restart, then ask with B, none, and A after the list changed (ttl 1 s).
Usage: creds.py --binary B
"""
import argparse, json, os, shutil, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start_hostile, write_config, start_proxy, stop, get, parse_items  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--pp", type=int, default=18614)
ap.add_argument("--up", type=int, default=18624)
a = ap.parse_args()
cache = "/tmp/attack20/cache-creds"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack20/creds.json"
write_config(cfgp, a.pp, cache, [
    {"name": "echo", "upstream": "http://127.0.0.1:%d/echo" % a.up, "pagination": {"scheme": "page-number", "pageSize": 10},
     "forwardHeaders": ["Authorization"], "ttlSeconds": 600},
    {"name": "echo1", "upstream": "http://127.0.0.1:%d/echo" % a.up, "pagination": {"scheme": "page-number", "pageSize": 10},
     "forwardHeaders": ["Authorization"], "ttlSeconds": 2}])
open("/tmp/attack20/echo-version", "w").write("v1")
up = start_hostile(a.up)
log = "/tmp/attack20/creds-proxy.log"
bad = []


def ask(tag, route, auth, nd, want_auth, want_ver):
    h = {"Authorization": auth} if auth else {}
    st, hd, body = get(a.pp, "/%s/x/items%s" % (route, "?_format=ndjson" if nd else ""), headers=h)
    items, err = parse_items(st, hd, body, nd)
    auths = sorted(set(i.get("auth") for i in items or []))
    vers = sorted(set(i.get("ver") for i in items or []))
    ok = err is None and len(items) == 60 and auths == [want_auth] and vers == [want_ver]
    print("%-26s %s %s st=%d n=%d auths=%s vers=%s cache=%s %s" % (tag, route, "nd" if nd else "js", st, len(items or []),
          auths, vers, hd.get("pageproxy-cache"), "" if ok else "<-- WRONG"))
    if not ok:
        bad.append(tag)


try:
    pp = start_proxy(a.binary, cfgp, a.pp, log)
    for route in ("echo", "echo1"):
        ask("warm A nd", route, "Bearer A", True, "Bearer A", "v1")
        ask("warm A js", route, "Bearer A", False, "Bearer A", "v1")
    time.sleep(1.0)
    stop(pp)
    pp = start_proxy(a.binary, cfgp, a.pp, log)
    for route in ("echo",):
        for nd in (True, False):
            ask("restart B", route, "Bearer B", nd, "Bearer B", "v1")
            ask("restart none", route, None, nd, "-", "v1")
            ask("restart A", route, "Bearer A", nd, "Bearer A", "v1")
            ask("restart A lowercase", route, "bearer A", nd, "bearer A", "v1")
    open("/tmp/attack20/echo-version", "w").write("v2")
    time.sleep(2.5)
    for nd in (True, False, True):
        ask("changed A (ttl 2)", "echo1", "Bearer A", nd, "Bearer A", "v2")
    stop(pp)
    pp = start_proxy(a.binary, cfgp, a.pp, log)
    for nd in (True, False):
        ask("restart changed A", "echo1", "Bearer A", nd, "Bearer A", "v2")
    stop(pp)
finally:
    stop(up)
print("wrong:", bad)
