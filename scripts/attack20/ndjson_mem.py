#!/usr/bin/env python3
"""attack20: VmHWM of the server under many NDJSON walks that keep their answers (distinct keys and one key),
read slowly or at once. Built-in mock as upstream. Usage: ndjson_mem.py --binary B [--walks 8] [--total 40000]
"""
import argparse, json, os, shutil, socket, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_config, start_proxy, stop, get, wait_port  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--walks", type=int, default=8)
ap.add_argument("--total", type=int, default=40000)
ap.add_argument("--pp", type=int, default=18619)
ap.add_argument("--mock", type=int, default=18629)
a = ap.parse_args()
cache = "/tmp/attack20/cache-mem"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack20/mem.json"
write_config(cfgp, a.pp, cache, [{"name": "demo", "upstream": "http://127.0.0.1:%d/github/items" % a.mock,
                                  "pagination": {"scheme": "link-header", "pageSize": 100}, "concurrency": 8,
                                  "maxPages": 10000, "ttlSeconds": 600}])
cfg = json.load(open(cfgp)); cfg["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 100, "latencyMs": 0}
json.dump(cfg, open(cfgp, "w"))
pp = start_proxy(a.binary, cfgp, a.pp, "/tmp/attack20/mem-proxy.log")
wait_port(a.mock)


def hwm():
    for l in open("/proc/%d/status" % pp.pid):
        if l.startswith(("VmHWM", "VmRSS")):
            yield l.split()[1]


def walk(q, slow, out):
    if not slow:  # parse: items must be ids 1..total once each, in order, no error line
        import http.client
        c = http.client.HTTPConnection("127.0.0.1", a.pp, timeout=120)
        c.request("GET", "/demo?per_page=100&mock_total=%d%s&_format=ndjson" % (a.total, q))
        r = c.getresponse(); body = r.read(); c.close()
        lines = [l for l in body.split(b"\n") if l]
        ids = [json.loads(l)["id"] for l in lines if not l.startswith(b"!")]
        out.append((r.status, len(ids), ids == list(range(1, a.total + 1)), r.getheader("Content-Length") is not None))
        return
    s = socket.create_connection(("127.0.0.1", a.pp), timeout=120)
    s.sendall(("GET /demo?per_page=100&mock_total=%d%s&_format=ndjson HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % (a.total, q)).encode())
    n = 0
    end = time.time() + 120
    while time.time() < end:
        b = s.recv(65536 if not slow else 4096)
        if not b:
            break
        n += b.count(b"\n")
        if slow:
            time.sleep(0.002)
    s.close(); out.append(n)


try:
    for label, qs, slow in (("distinct keys, fast", ["&k=%d" % i for i in range(a.walks)], False),
                            ("one key, fast", ["&k=same"] * a.walks, False),
                            ("distinct keys, slow readers", ["&s=%d" % i for i in range(a.walks)], True)):
        out = []
        ths = [threading.Thread(target=walk, args=(q, slow, out)) for q in qs]
        t0 = time.time()
        [t.start() for t in ths]; [t.join(150) for t in ths]
        print("%-28s lines=%s %.1fs HWM/RSS kB=%s" % (label, sorted(set(out)), time.time() - t0, list(hwm())))
        sys.stdout.flush()
    m = get(a.pp, "/metrics")[2].decode()
    print([l for l in m.splitlines() if l.startswith("pageproxy_memo_bytes")])
finally:
    stop(pp)
