#!/usr/bin/env python3
"""attack20: answer entries (format 2) and NDJSON from them: byte flips and truncations of entry files, kill -9 while
they are written, concurrent NDJSON + merged requests of one key after a restart.

Truth is the same upstream through a route with ttlSeconds 0 (no cache). Built-in mock as upstream.
Usage: entry_attack.py --binary B [--flips 40] [--kills 12] [--seconds 480]
"""
import argparse
import glob
import json
import os
import random
import shutil
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_config, start_proxy, stop, get, parse_items, wait_port  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--flips", type=int, default=40)
ap.add_argument("--kills", type=int, default=12)
ap.add_argument("--seconds", type=int, default=480)
ap.add_argument("--pp", type=int, default=18612)
ap.add_argument("--mock", type=int, default=18622)
a = ap.parse_args()
END = time.time() + a.seconds

cache = "/tmp/attack20/cache-entry"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack20/entry.json"
write_config(cfgp, a.pp, cache, [
    {"name": "demo", "upstream": "http://127.0.0.1:%d/github/items" % a.mock,
     "pagination": {"scheme": "link-header", "pageSize": 20}, "concurrency": 4, "forwardHeaders": ["Authorization"],
     "ttlSeconds": 600},
    {"name": "truth", "upstream": "http://127.0.0.1:%d/github/items" % a.mock,
     "pagination": {"scheme": "link-header", "pageSize": 20}, "concurrency": 4, "ttlSeconds": 0},
])
cfg = json.load(open(cfgp))
cfg["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20, "latencyMs": 0}
json.dump(cfg, open(cfgp, "w"))
log = "/tmp/attack20/entry-proxy.log"
open(log, "w").close()

QUERIES = ["?mock_total=600", "?mock_total=900&_max_items=700", "?mock_total=500&_fields=id,name", "?mock_total=777&_max_pages=30"]
truth = {}
bad = []
counts = {}


def start():
    p = start_proxy(a.binary, cfgp, a.pp, log)
    assert wait_port(a.mock)
    return p


def check(tag, q, nd, headers=None):
    phase = tag.split("#")[0]
    counts[phase] = counts.get(phase, 0) + 1
    st, h, body = get(a.pp, "/demo" + q + ("&_format=ndjson" if nd else ""), headers=headers)
    items, err = parse_items(st, h, body, nd)
    if err is not None:
        print(tag, q, "nd" if nd else "js", "ERR", err[:150]); return
    if nd:
        got = items
    else:
        got = items
    if got != truth[q]:
        line = "%s %s %s WRONG under %d: %d items vs %d; cache=%s" % (tag, q, "nd" if nd else "js", st, len(got),
                                                                      len(truth[q]), h.get("pageproxy-cache"))
        print(line); bad.append(line)


def entries():
    # answer entries are the large files; list every .entry with its size
    return sorted(glob.glob(cache + "/**/*.entry", recursive=True), key=lambda f: -os.path.getsize(f))


p = start()
try:
    for q in QUERIES:
        st, h, body = get(a.pp, "/truth" + q)
        truth[q] = json.loads(body)
        print("truth", q, st, len(truth[q]))
    # warm: merged then NDJSON, then wait for the background writes
    for q in QUERIES:
        check("warm", q, False); check("warm", q, True)
    time.sleep(1.0)
    stop(p)
    files = entries()
    big = [f for f in files if os.path.getsize(f) > 30000]
    print("entries", len(files), "answer-sized", len(big), [os.path.getsize(f) for f in big][:6])
    saved = {f: open(f, "rb").read() for f in big}
    rnd = random.Random(7)
    # 1) flips / truncations of answer entries, one change per restart
    for i in range(a.flips):
        if time.time() > END:
            break
        f = rnd.choice(big)
        data = bytearray(saved[f])
        kind = rnd.choice(["flip", "flip", "trunc", "zero16", "tail"])
        if kind == "flip":
            pos = rnd.randrange(len(data)); data[pos] ^= 1 << rnd.randrange(8)
        elif kind == "trunc":
            data = data[:rnd.randrange(len(data))]
        elif kind == "zero16":
            pos = rnd.randrange(max(1, len(data) - 16)); data[pos:pos + 16] = bytes(16)
        else:
            data += b"garbage\n"
        # restore all, then damage one (keep mtime as written, as a bad disk would)
        for g, d in saved.items():
            st0 = os.stat(g) if os.path.exists(g) else None
            with open(g, "wb") as o:
                o.write(d)
        with open(f, "wb") as o:
            o.write(bytes(data))
        p = start()
        qs = QUERIES[:]
        rnd.shuffle(qs)
        for q in qs:
            check("flip#%d-%s" % (i, kind), q, rnd.random() < 0.5)
        stop(p)
    # 2) concurrent NDJSON and merged of one key right after a restart
    for rep in range(4):
        if time.time() > END:
            break
        p = start()
        ths = []
        for j in range(10):
            q = QUERIES[j % len(QUERIES)]
            t = threading.Thread(target=check, args=("conc#%d" % rep, q, j % 3 != 0))
            ths.append(t); t.start()
        for t in ths:
            t.join(60)
        stop(p)
    # 3) kill -9 during the writes (requests in flight), then restart and check
    for k in range(a.kills):
        if time.time() > END:
            break
        p = start()
        ths = []
        for j in range(6):
            q = QUERIES[j % len(QUERIES)] + "&xk=%d" % (k % 3)  # new keys now and then
            if q not in truth:
                st, h, body = get(a.pp, "/truth" + q)
                truth[q] = json.loads(body)
            t = threading.Thread(target=lambda q=q, j=j: (lambda: check("kill#%d" % k, q, j % 2 == 0))())
            ths.append(t); t.start()
        time.sleep(random.Random(k).uniform(0.0, 0.25))
        p.send_signal(signal.SIGKILL); p.wait()
        for t in ths:
            t.join(30)
        p = start()
        for q in list(truth):
            check("after-kill#%d" % k, q, False); check("after-kill#%d" % k, q, True)
        stop(p)
finally:
    if p.poll() is None:
        stop(p)
print("checks per phase:", counts)
print("WRONG lines:", len(bad))
os.system("grep -ciE 'fatal|crash|panic' %s" % log)
