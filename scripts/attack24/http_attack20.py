#!/usr/bin/env python3
"""attack24 (from attack20): the HTTP server with raw sockets: smuggling shapes, pipelining, huge/slow heads, HEAD, conditionals,
TE: trailers. Prints the first line(s) of each answer; checks the server still answers /healthz after each case.
Usage: http_attack.py --binary B
"""
import argparse
import json
import os
import shutil
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_config, start_proxy, stop, get, wait_port  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--pp", type=int, default=18613)
ap.add_argument("--mock", type=int, default=18623)
a = ap.parse_args()
cache = "/tmp/attack24/cache-http"
shutil.rmtree(cache, ignore_errors=True)
cfgp = "/tmp/attack24/http.json"
write_config(cfgp, a.pp, cache, [
    {"name": "demo", "upstream": "http://127.0.0.1:%d/github/items" % a.mock,
     "pagination": {"scheme": "link-header", "pageSize": 20}, "forwardHeaders": ["Authorization"]}])
cfg = json.load(open(cfgp))
cfg["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20, "latencyMs": 0}
cfg["server"] = {"headerTimeoutSeconds": 2, "idleTimeoutSeconds": 5}
json.dump(cfg, open(cfgp, "w"))
log = "/tmp/attack24/http-proxy.log"
open(log, "w").close()
p = start_proxy(a.binary, cfgp, a.pp, log)
wait_port(a.mock)


def raw(data, read_for=3.0, chunks=None, delay=0.0):
    s = socket.create_connection(("127.0.0.1", a.pp), timeout=read_for)
    try:
        if chunks:
            for c in chunks:
                try:
                    s.sendall(c)
                except OSError:
                    break
                time.sleep(delay)
        else:
            s.sendall(data)
        out = b""
        end = time.time() + read_for
        while time.time() < end:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                out += b"<RST>"; break
            if not b:
                out += b"<EOF>"; break
            out += b
        return out
    finally:
        s.close()


def statuses(out):
    import re
    return [m.decode(errors="replace") for m in re.findall(rb"HTTP/1\.[01] \d\d\d [A-Za-z -]*", out)]


def case(name, data=None, **kw):
    out = raw(data, **kw)
    alive = get(a.pp, "/healthz")[0]
    print("%-34s %s len=%d %s healthz=%d" % (name, statuses(out), len(out), "EOF" if out.endswith(b"<EOF>") else "", alive))
    sys.stdout.flush()
    return out


H = b"Host: x\r\n"
try:
    case("pipelined 3 GETs", b"GET /demo?_max_items=2 HTTP/1.1\r\n" + H + b"\r\n" + b"GET /demo?_format=ndjson&_max_items=1 HTTP/1.1\r\n" + H + b"\r\nGET /healthz HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    case("CL+TE on GET (smuggle)", b"GET /demo?_max_items=1 HTTP/1.1\r\n" + H + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\n" + H + b"\r\n")
    case("two Content-Length", b"GET /healthz HTTP/1.1\r\n" + H + b"Content-Length: 0\r\nContent-Length: 5\r\n\r\nhello")
    case("GET body w/ request inside", b"GET /healthz HTTP/1.1\r\n" + H + b"Content-Length: 30\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    case("TE chunked w/ request inside", b"GET /healthz HTTP/1.1\r\n" + H + b"Transfer-Encoding: chunked\r\n\r\n1e\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n\r\n0\r\n\r\n")
    case("TE: gzip, chunked", b"GET /healthz HTTP/1.1\r\n" + H + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")
    case("obs-fold header", b"GET /healthz HTTP/1.1\r\n" + H + b"X-A: 1\r\n  continued\r\n\r\n")
    case("bare LF", b"GET /healthz HTTP/1.1\nHost: x\n\n")
    case("space before colon", b"GET /healthz HTTP/1.1\r\n" + H + b"Content-Length : 5\r\n\r\nhello")
    case("NUL in header", b"GET /healthz HTTP/1.1\r\n" + H + b"X-A: a\x00b\r\n\r\n")
    case("absolute-form", b"GET http://127.0.0.1/demo?_max_items=1 HTTP/1.1\r\n" + H + b"\r\n")
    case("HTTP/1.0 no host", b"GET /demo?_max_items=1 HTTP/1.0\r\n\r\n")
    case("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    case("HTTP/1.1 no Host", b"GET /healthz HTTP/1.1\r\n\r\n")
    case("two Host", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
    case("huge header 40KB", b"GET /healthz HTTP/1.1\r\n" + H + b"X-A: " + b"a" * 40000 + b"\r\n\r\n")
    case("101 headers", b"GET /healthz HTTP/1.1\r\n" + H + b"".join(b"X-%d: 1\r\n" % i for i in range(101)) + b"\r\n")
    case("long URL 9000", b"GET /demo?" + b"a" * 9000 + b" HTTP/1.1\r\n" + H + b"\r\n")
    case("slow head (1 byte/0.3s)", chunks=[c.encode() for c in "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"], delay=0.3, read_for=4)
    case("head never ends", b"GET /healthz HTTP/1.1\r\n" + H, read_for=4)
    case("HEAD ndjson", b"HEAD /demo?_format=ndjson HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    case("HEAD ndjson TE trailers", b"HEAD /demo?_format=ndjson HTTP/1.1\r\n" + H + b"TE: trailers\r\nConnection: close\r\n\r\n")
    out = raw(b"GET /demo HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    etag = [l for l in out.split(b"\r\n") if l.lower().startswith(b"etag:")]
    print("etag", etag)
    if etag:
        e = etag[0].split(b":", 1)[1].strip()
        case("If-None-Match etag", b"GET /demo HTTP/1.1\r\n" + H + b"If-None-Match: " + e + b"\r\nConnection: close\r\n\r\n")
        case("If-None-Match W/etag", b"GET /demo HTTP/1.1\r\n" + H + b"If-None-Match: W/" + e + b"\r\nConnection: close\r\n\r\n")
        case("If-None-Match * ", b"GET /demo HTTP/1.1\r\n" + H + b"If-None-Match: *\r\nConnection: close\r\n\r\n")
        case("If-Match wrong", b"GET /demo HTTP/1.1\r\n" + H + b"If-Match: \"nope\"\r\nConnection: close\r\n\r\n")
        case("INM etag other Authorization", b"GET /demo HTTP/1.1\r\n" + H + b"Authorization: Bearer zz\r\nIf-None-Match: " + e + b"\r\nConnection: close\r\n\r\n")
        case("INM etag ndjson", b"GET /demo?_format=ndjson HTTP/1.1\r\n" + H + b"If-None-Match: " + e + b"\r\nConnection: close\r\n\r\n")
        case("INM etag window", b"GET /demo?_limit=5 HTTP/1.1\r\n" + H + b"If-None-Match: " + e + b"\r\nConnection: close\r\n\r\n")
    out = case("TE trailers ndjson", b"GET /demo?_format=ndjson HTTP/1.1\r\n" + H + b"TE: trailers\r\nConnection: close\r\n\r\n")
    print("   tail:", out[-160:])
    out = case("HTTP/1.0 ndjson", b"GET /demo?_format=ndjson HTTP/1.0\r\n\r\n")
    print("   head:", out[:300].split(b"\r\n\r\n")[0])
    case("Range header", b"GET /demo HTTP/1.1\r\n" + H + b"Range: bytes=0-10\r\nConnection: close\r\n\r\n")
    case("Expect 100 GET", b"GET /demo?_max_items=1 HTTP/1.1\r\n" + H + b"Expect: 100-continue\r\nContent-Length: 3\r\n\r\n")
    case("path %2e%2e", b"GET /demo/%2e%2e/x HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    case("route ..", b"GET /../demo HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    case("query with # and space", b"GET /demo?_max_items=1#frag HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n")
    case("Authorization twice", b"GET /demo?_max_items=1 HTTP/1.1\r\n" + H + b"Authorization: a\r\nAuthorization: b\r\nConnection: close\r\n\r\n")
    # half-close client mid-ndjson, many times
    for i in range(20):
        s = socket.create_connection(("127.0.0.1", a.pp)); s.sendall(b"GET /demo?_format=ndjson&mock_total=20000 HTTP/1.1\r\n" + H + b"\r\n"); s.recv(100); s.close()
    print("20 aborted ndjson, healthz", get(a.pp, "/healthz")[0])
finally:
    stop(p)
os.system("grep -ciE 'fatal|crash' %s" % log)
