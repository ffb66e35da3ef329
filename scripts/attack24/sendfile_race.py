#!/usr/bin/env python3
"""attack24: entry files changed under an answer being sent from them (cache.sendFromFiles on): a slow client reads a
cached 20,000-item merged answer (and NDJSON) while entry files are truncated, byte-flipped or swapped. Pass: each
answer either parses to ids 1..N exactly, or is cut short (fewer bytes than Content-Length / no final chunk); a
complete answer with wrong bytes is BAD. Usage: sendfile_race.py --binary B [--rounds 30] [--seconds 240]
"""
import argparse, glob, json, os, random, shutil, signal, socket, subprocess, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import wait_port, get  # noqa
ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--rounds", type=int, default=30)
ap.add_argument("--seconds", type=int, default=240)
ap.add_argument("--pp", type=int, default=18931)
ap.add_argument("--mock", type=int, default=18932)
ap.add_argument("--memo", type=int, default=0)
a = ap.parse_args()
END = time.time() + a.seconds
d = "/tmp/attack24/cache-sf"; shutil.rmtree(d, ignore_errors=True)
cfg = {"listen": {"address": "127.0.0.1", "port": a.pp}, "cache": {"directory": d, "maxBytes": 1 << 30, "sendFromFiles": True, "memoBytes": a.memo},
       "logLevel": "warning", "routes": [{"name": "gh", "upstream": "http://127.0.0.1:%d/github/items" % a.mock,
       "pagination": {"scheme": "link-header", "pageSize": 100}, "ttlSeconds": 3600, "concurrency": 8}]}
json.dump(cfg, open("/tmp/attack24/sf.json", "w"))
mock = subprocess.Popen([a.binary, "mock", "--port", str(a.mock)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
pp = subprocess.Popen([a.binary, "serve", "--config", "/tmp/attack24/sf.json"], stdout=open("/tmp/attack24/sf.log", "w"), stderr=subprocess.STDOUT)
wait_port(a.mock); wait_port(a.pp)
rnd = random.Random(3)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
N = 20000
stats = {}
def bump(k): stats[k] = stats.get(k, 0) + 1
def slow_get(target):
    s = socket.create_connection(("127.0.0.1", a.pp), timeout=30)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % target).encode())
    out = b""
    try:
        while True:
            b = s.recv(4096)
            if not b: break
            out += b
            if len(out) < 1500000: time.sleep(0.001)
    except OSError: pass
    s.close()
    return out
def dechunk(body):
    out = b""; i = 0
    while True:
        j = body.find(b"\r\n", i)
        if j < 0: return None
        n = int(body[i:j].split(b";")[0], 16)
        if n == 0: return out
        out += body[j + 2:j + 2 + n]; i = j + 2 + n + 2
def verify(raw, nd):
    head, _, body = raw.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"): bump("status_" + head[9:12].decode(errors="replace")); return
    hl = head.lower()
    if b"content-length:" in hl:
        cl = int(hl.split(b"content-length:")[1].split(b"\r\n")[0])
        if len(body) < cl: bump("cut_short"); return
        body = body[:cl]
    elif b"transfer-encoding: chunked" in hl:
        body = dechunk(body)
        if body is None: bump("cut_short"); return
    try:
        ids = [json.loads(l)["id"] for l in body.splitlines() if l.startswith(b"{")] if nd else [x["id"] for x in json.loads(body)]
    except Exception as e:
        bump("BAD_parse"); print("BAD parse", nd, len(body), body[:80], body[-80:]); return
    if ids != list(range(1, N + 1)):
        bump("BAD_ids"); print("BAD ids", nd, len(ids), ids[:3], ids[-3:]); return
    bump("ok")
try:
    get(a.pp, "/gh?mock_total=%d&per_page=100" % N)
    for r in range(a.rounds):
        if time.time() > END: break
        nd = r % 2 == 1
        res = {}
        t = threading.Thread(target=lambda: res.setdefault("raw", slow_get("/gh?mock_total=%d&per_page=100%s" % (N, "&_format=ndjson" if nd else ""))))
        t0 = time.time(); t.start(); time.sleep(rnd.uniform(0.01, 0.2))
        fs = glob.glob(d + "/*/*.entry")
        for _ in range(3):
            f = rnd.choice(fs); kind = rnd.choice(["truncate", "flip", "swap"])
            try:
                if kind == "truncate": os.truncate(f, os.path.getsize(f) // 2)
                elif kind == "flip":
                    sz = os.path.getsize(f); pos = rnd.randrange(sz // 2, sz)
                    with open(f, "r+b") as fh: fh.seek(pos); b = fh.read(1); fh.seek(pos); fh.write(bytes([b[0] ^ 4]))
                else:
                    g = rnd.choice(fs); tmp = f + ".t"; os.rename(f, tmp); os.rename(g, f); os.rename(tmp, g)
            except OSError: pass
        t.join(120)
        t1 = time.time(); verify(res.get("raw", b""), nd); print("round", r, "nd", nd, "len", len(res.get("raw", b"")), "%.1fs" % (time.time() - t0), stats)
        if pp.poll() is not None: print("CRASH rc", pp.returncode); bump("CRASH"); break
        # the next request after the damage: must be right (refetched) or an error, never wrong
        t2 = time.time(); verify(slow_get("/gh?mock_total=%d&per_page=100" % N), False); print("   after-damage GET %.1fs" % (time.time() - t2), stats)
        sys.stdout.flush()
finally:
    for p in (pp, mock):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try: p.wait(15)
            except subprocess.TimeoutExpired: p.kill()
print(stats)
