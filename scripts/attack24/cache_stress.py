#!/usr/bin/env python3
"""attack24: the cache under stress. Two proxies on one cache directory (optionally a small tmpfs: a full disk),
sendFromFiles on or off, the built-in mock as upstream (its own process). Random steps: requests (merged, NDJSON,
windows, _fields) to either proxy; kill -9 of one proxy while a walk writes; entry files truncated, byte-flipped,
swapped, copied over each other, emptied; a filler file filling the disk and removed again; restarts.
Truth: the mock's ids are 1..mock_total. A 200 whose items are not the truth (or its slice) is BAD; an unexpected
exit is CRASH. Bounded by --steps and --seconds. At the end both proxies are restarted and every query checked again.
Usage: cache_stress.py --binary B [--dir /tmp/attack24/full/cache] [--send-from-files 1] [--steps 300] [--seconds 300]
"""
import argparse, glob, json, os, random, shutil, signal, subprocess, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import wait_port, get, parse_items  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--dir", default="/tmp/attack24/cache-stress")
ap.add_argument("--send-from-files", type=int, default=1)
ap.add_argument("--memo", type=int, default=-1)
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--seconds", type=int, default=300)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--filler", default="")  # a path on the same filesystem to fill it
ap.add_argument("--ports", default="18811,18812,18813")
a = ap.parse_args()
END = time.time() + a.seconds
PA, PB, PM = (int(x) for x in a.ports.split(","))
rnd = random.Random(a.seed)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
shutil.rmtree(a.dir, ignore_errors=True)
os.makedirs("/tmp/attack24", exist_ok=True)
M = "http://127.0.0.1:%d" % PM
routes = [
    {"name": "drf", "upstream": M + "/drf/items/", "pagination": {"scheme": "offset", "limit": 20, "totalItemsPath": "count"},
     "items": "results", "ttlSeconds": 600, "retries": 0, "concurrency": 4},
    {"name": "gh", "upstream": M + "/github/items", "pagination": {"scheme": "link-header", "pageSize": 20},
     "ttlSeconds": 600, "retries": 0, "concurrency": 4},
    {"name": "slack", "upstream": M + "/slack/items", "pagination": {"scheme": "cursor", "cursorPath": "response_metadata.next_cursor",
     "cursorParameter": "cursor", "sizeParameter": "limit", "pageSize": 20}, "items": "members", "ttlSeconds": 600, "retries": 0},
]
procs = {}
logs = {}
def cfg_for(port, tag):
    c = {"listen": {"address": "127.0.0.1", "port": port},
         "cache": {"directory": a.dir, "maxBytes": 268435456, "sendFromFiles": bool(a.send_from_files)},
         "logLevel": "warning", "routes": routes}
    if a.memo >= 0: c["cache"]["memoBytes"] = a.memo
    p = "/tmp/attack24/cs-%s-%d.json" % (tag, port)
    json.dump(c, open(p, "w"))
    return p
def start(tag, port):
    logs[tag] = "/tmp/attack24/cs-%s-%d.log" % (tag, port)
    p = subprocess.Popen([a.binary, "serve", "--config", cfg_for(port, tag)], stdout=open(logs[tag], "a"), stderr=subprocess.STDOUT)
    if not wait_port(port, 30):
        print("START-FAIL", tag, open(logs[tag]).read()[-500:]); p.kill(); p.wait(); return None
    procs[tag] = p
    return p
mock = subprocess.Popen([a.binary, "mock", "--port", str(PM), "--latency-ms", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wait_port(PM)
start("A", PA); start("B", PB)
PORT = {"A": PA, "B": PB}
stats = {}
def bump(k): stats[k] = stats.get(k, 0) + 1
QUERIES = []
for n in (5, 45, 200, 1500, 3000):
    for route in ("drf", "gh", "slack"):
        QUERIES.append((route, n))
def check(tag, route, n, extra="", nd=False, offset=None, limit=None, killed=False):
    q = "/%s?mock_total=%d" % (route, n)
    if offset is not None: q += "&_offset=%d" % offset
    if limit is not None: q += "&_limit=%d" % limit
    if nd: q += "&_format=ndjson"
    q += extra
    try:
        st, h, body = get(PORT[tag], q, timeout=60)
    except Exception as e:
        if killed: bump("cut_by_kill"); return "cut"
        bump("conn_err"); return "conn:" + type(e).__name__
    its, err = parse_items(st, h, body, nd)
    want = list(range(1, n + 1))
    o = offset or 0
    want = want[o:o + limit] if limit else want[o:]
    if err is not None:
        if st == 200 and nd:
            got = [x.get("id") for x in its]
            if got != want[:len(got)]:
                bump("BAD"); print("BAD-ND-PREFIX %s %s -> %s... err %s" % (tag, q, got[:10], err)); return "bad"
        bump("err_%d" % st); 
        if st not in (502, 503, 504) : print("ERR %s %s -> %d %s" % (tag, q, st, err[:200]))
        return "err"
    got = [x.get("id") for x in its]
    if killed and st == 200 and nd and got == want[:len(got)]:
        bump("cut_by_kill"); return "cut"
    if "_fields=id" in extra and its and set(its[0].keys()) != {"id"}:
        bump("BAD"); print("BAD-FIELDS %s %s %s" % (tag, q, its[0])); return "bad"
    if got != want:
        bump("BAD"); print("BAD %s %s -> %d items %s..%s want %d (cache %s)" % (tag, q, len(got), got[:5], got[-3:], len(want), h.get("pageproxy-cache"))); sys.stdout.flush(); return "bad"
    bump("ok"); return "ok"
def entries():
    return glob.glob(os.path.join(a.dir, "*", "*.entry")) + glob.glob(os.path.join(a.dir, "**", "*"), recursive=True)
def files():
    return [f for f in glob.glob(os.path.join(a.dir, "**", "*"), recursive=True) if os.path.isfile(f) and not os.path.basename(f).startswith(".pageproxy")]
def vandalize():
    fs = files()
    if not fs: return
    f = rnd.choice(fs)
    kind = rnd.choice(["truncate", "flip", "swap", "copy", "empty", "flip_tail"])
    try:
        if kind == "truncate":
            sz = os.path.getsize(f); os.truncate(f, rnd.randrange(0, max(1, sz)))
        elif kind == "empty":
            os.truncate(f, 0)
        elif kind in ("flip", "flip_tail"):
            sz = os.path.getsize(f)
            if sz == 0: return
            pos = rnd.randrange(max(0, sz - 64) if kind == "flip_tail" else 0, sz)
            with open(f, "r+b") as fh:
                fh.seek(pos); b = fh.read(1); fh.seek(pos); fh.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        elif kind == "swap":
            g = rnd.choice(fs)
            if g == f: return
            tmp = f + ".swaptmp"; os.rename(f, tmp); os.rename(g, f); os.rename(tmp, g)
        elif kind == "copy":
            g = rnd.choice(fs)
            if g == f: return
            shutil.copyfile(g, f)
        bump("vandal_" + kind)
    except OSError as e:
        bump("vandal_oserr")
filler_on = False
def fill():
    global filler_on
    if not a.filler: return
    try:
        with open(a.filler, "ab") as fh:
            while True:
                fh.write(b"\0" * 65536); fh.flush()
    except OSError:
        pass
    filler_on = True; bump("fill")
def unfill():
    global filler_on
    if a.filler and os.path.exists(a.filler): os.remove(a.filler)
    filler_on = False
def alive_check():
    for tag, p in list(procs.items()):
        if p is not None and p.poll() is not None:
            bump("CRASH"); print("CRASH %s rc=%s log tail: %s" % (tag, p.returncode, open(logs[tag]).read()[-800:])); sys.stdout.flush()
            start(tag, PORT[tag])
try:
    for step in range(a.steps):
        if time.time() > END: break
        r = rnd.random()
        tag = rnd.choice("AB")
        route, n = rnd.choice(QUERIES)
        if r < 0.55:
            nd = rnd.random() < 0.35
            off = rnd.choice([None, None, 0, 19, 20, 40, 199, 1000]) 
            lim = rnd.choice([None, None, 1, 20, 100])
            extra = rnd.choice(["", "", "&_fields=id", "&_fresh=1"])
            check(tag, route, n, extra, nd, off, lim)
        elif r < 0.7:
            # kill -9 during a walk
            t = threading.Thread(target=check, args=(tag, route, max(n, 1500), "", rnd.random() < 0.5, None, None, True))
            t.start(); time.sleep(rnd.uniform(0.005, 0.3))
            procs[tag].send_signal(signal.SIGKILL); procs[tag].wait(); t.join(70); bump("kill9")
            start(tag, PORT[tag])
        elif r < 0.85:
            for _ in range(rnd.randint(1, 4)): vandalize()
        elif r < 0.92:
            fill() if not filler_on else unfill()
        else:
            procs[tag].send_signal(signal.SIGTERM); procs[tag].wait(20); bump("restart"); start(tag, PORT[tag])
        alive_check()
        sys.stdout.flush()
    unfill()
    print("steps done", stats); print("final check")
    for tag in "AB":
        procs[tag].send_signal(signal.SIGTERM); procs[tag].wait(20); start(tag, PORT[tag])
    for tag in "AB":
        for route, n in QUERIES:
            check(tag, route, n); check(tag, route, n, nd=True); check(tag, route, n, offset=19, limit=30)
    alive_check()
finally:
    unfill()
    for p in list(procs.values()) + [mock]:
        if p and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try: p.wait(15)
            except subprocess.TimeoutExpired: p.kill()
print(stats)
