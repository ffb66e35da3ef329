#!/usr/bin/env python3
"""attack24: the HTTP server under load-shaped abuse, with the process's VmRSS/VmHWM after each case:
a 64 MiB body on GET (streamed), 3,000 pipelined requests written without reading, 1,500 idle connections
(past maxConnections 1024), 300 slowloris heads, methods, odd targets. Checks /healthz after each.
Usage: http_more.py --binary B [--pp 18841 --mock 18842]
"""
import argparse, json, os, shutil, socket, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_config, start_proxy, stop, get, wait_port  # noqa
ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--pp", type=int, default=18841)
ap.add_argument("--mock", type=int, default=18842)
a = ap.parse_args()
cache = "/tmp/attack24/cache-hm"; shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack24/hm.json"
write_config(cfgp, a.pp, cache, [{"name": "demo", "upstream": "http://127.0.0.1:%d/github/items" % a.mock,
                                   "pagination": {"scheme": "link-header", "pageSize": 20}}])
cfg = json.load(open(cfgp))
cfg["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20, "latencyMs": 0}
cfg["server"] = {"headerTimeoutSeconds": 3, "idleTimeoutSeconds": 6, "maxConnections": 1024}
json.dump(cfg, open(cfgp, "w"))
pp = start_proxy(a.binary, cfgp, a.pp, "/tmp/attack24/hm.log"); wait_port(a.mock)
def mem():
    d = {}
    for l in open("/proc/%d/status" % pp.pid):
        if l.startswith(("VmRSS", "VmHWM")): k, v = l.split(":"); d[k] = v.strip()
    return d
def health():
    try: return get(a.pp, "/healthz", timeout=10)[0]
    except Exception as e: return type(e).__name__
def conn():
    s = socket.create_connection(("127.0.0.1", a.pp), timeout=10); return s
def readall(s, bound=10.0):
    s.settimeout(1.0); out = b""; end = time.time() + bound
    while time.time() < end:
        try:
            b = s.recv(65536)
            if not b: break
            out += b
        except socket.timeout:
            if out: break
        except OSError: break
    return out
def report(name, out):
    first = out.split(b"\r\n", 1)[0][:80]
    print("%-34s %-40s n200=%d len=%d healthz=%s %s" % (name, first.decode(errors="replace"), out.count(b"HTTP/1.1 200"), len(out), health(), mem())); sys.stdout.flush()
get(a.pp, "/demo"); print("baseline", mem())
# 1. 64 MiB body on GET, streamed
s = conn(); s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (64 << 20))
sent = 0
try:
    s.settimeout(5)
    while sent < (64 << 20):
        sent += s.send(b"x" * 65536)
except OSError as e: pass
report("64MiB body on GET (sent %d)" % sent, readall(s)); s.close()
# 1b. chunked body huge chunk size
s = conn(); s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\nabc")
report("chunk size 2^72", readall(s, 4)); s.close()
s = conn(); s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n")
report("CL 10^23", readall(s, 4)); s.close()
s = conn(); s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n")
report("CL -1", readall(s, 4)); s.close()
# 2. 3000 pipelined requests, not read until all written
s = conn(); req = b"GET /demo?_max_items=3 HTTP/1.1\r\nHost: x\r\n\r\n"
s.settimeout(20); n = 0
try:
    for i in range(3000):
        s.sendall(req); n += 1
except OSError as e: print("pipelining write stopped at", n, e)
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
out = readall(s, 60); report("3000 pipelined (sent %d)" % n, out); s.close()
# 3. 1500 idle connections
socks = []
for i in range(1500):
    try: socks.append(conn())
    except OSError as e: print("connect failed at", i, e); break
time.sleep(0.5)
extra = conn(); extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
report("1500 idle conns, then one more", readall(extra, 5)); extra.close()
for s in socks: s.close()
time.sleep(1)
# 4. 300 slowloris
socks = []
for i in range(300):
    s = conn(); s.sendall(b"GET /demo HTTP/1.1\r\nHost: x\r\n"); socks.append(s)
t0 = time.time()
while time.time() - t0 < 5:
    for s in socks:
        try: s.send(b"X-a: b\r\n")
        except OSError: pass
    time.sleep(0.5)
closed = 0
for s in socks:
    s.settimeout(0.2)
    try:
        b = s.recv(4096); closed += 1 if (not b or b.startswith(b"HTTP/1.1 408")) else 0
    except OSError: pass
    s.close()
print("slowloris: %d of 300 answered/closed within ~5 s (headerTimeoutSeconds 3)" % closed, "healthz", health(), mem())
# 5. methods and targets
for name, data in [("POST", b"POST /demo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"),
                   ("DELETE", b"DELETE /demo HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("OPTIONS *", b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("CONNECT", b"CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("lowercase get", b"get /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("bad %zz", b"GET /demo?_limit=%zz HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("%00 in path", b"GET /demo%00 HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("utf8 path", "GET /démo HTTP/1.1\r\nHost: x\r\n\r\n".encode()),
                   ("empty request line", b"\r\n\r\n"),
                   ("only CRs", b"GET /healthz HTTP/1.1\rHost: x\r\r"),
                   ("HTTP/1.2", b"GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n"),
                   ("HTTP/9.9", b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n"),
                   ("tab in request line", b"GET\t/healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("double slash", b"GET //demo?_max_items=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("encoded slash", b"GET /demo%2fx HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("%2e%2e%2f route", b"GET /%2e%2e/demo HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("absolute other host", b"GET http://evil.example/demo?_max_items=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
                   ("Range multi", b"GET /demo?_max_items=1 HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1,5-9\r\n\r\n"),
                   ("INM list garbage", b"GET /demo HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"a\", garbage, W/\r\n\r\n"),
                   ("If-Modified-Since garbage", b"GET /demo?_max_items=1 HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: yesterday\r\n\r\n"),
                   ("Expect 100 no body", b"GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n"),
                   ("Expect weird", b"GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n"),
                   ("Accept ndjson q=0", b"GET /demo?_max_items=1 HTTP/1.1\r\nHost: x\r\nAccept: application/x-ndjson;q=0, application/json\r\n\r\n"),
                   ("Cache-Control garbage", b"GET /demo?_max_items=1 HTTP/1.1\r\nHost: x\r\nCache-Control: max-age=-5, only-if-cached=\r\n\r\n"),
                   ("Cache-Control huge max-age", b"GET /demo?_max_items=1 HTTP/1.1\r\nHost: x\r\nCache-Control: max-age=99999999999999999999999\r\n\r\n"),
                   ]:
    s = conn(); s.sendall(data); out = readall(s, 4); report(name, out)
    body = out.split(b"\r\n\r\n", 1)[-1][:160]
    print("     body:", body)
    s.close()
stop(pp)
print("exit", pp.returncode)
