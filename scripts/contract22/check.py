#!/usr/bin/env python3
"""Checks a PageProxy release binary against /work/shared/DESIGN.md, claim by claim (contract22).

    python3 scripts/contract22/check.py --binary .build/release/PageProxy [--base-port 19100] [--only WORD]

Starts, on loopback ports base..base+3: the binary on the shipped config.json (with its built-in mock), a second
PageProxy on a config of its own, and a small Python upstream that records the headers it is sent. Every check
prints PASS or FAIL with the evidence. The checks named "bug:" expect the departure found in session 22 and print
BUG while it is there (FIXED once it is gone). Each server is stopped by its PID at the end. It takes about 40 s.
Exit status: 1 if any check FAILs, else 0 (BUG lines do not fail the run).
"""
import argparse, http.client, json, os, re, signal, socket, subprocess, sys, tempfile, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
results = []
NL, CRLF = b"\n", b"\r\n"


def report(name, ok, evidence, bug=False):
    word = ("BUG" if not ok else "FIXED") if bug else ("PASS" if ok else "FAIL")
    results.append((word, name))
    print(f"{word:5} {name}: {evidence}", flush=True)


def get(port, target, headers=None, method="GET", body=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request(method, target, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read() if method != "HEAD" else b""
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def raw(port, data, timeout=15):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out


def wait_http(port, proc, bound=10.0):
    end = time.time() + bound
    while time.time() < end:
        if proc.poll() is not None:
            raise SystemExit(f"server on {port} exited: {proc.returncode}")
        try:
            if get(port, "/healthz", timeout=1)[0] == 200:
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"server on {port} did not answer within {bound} s")


class Echo(BaseHTTPRequestHandler):
    """Page-number list of 2 items at 1 a page; records each request's path and headers."""
    protocol_version = "HTTP/1.1"
    seen = []
    down = threading.Event()

    def log_message(self, *a):
        pass

    def do_GET(self):
        q = parse_qs(urlparse(self.path).query, keep_blank_values=True)
        Echo.seen.append({"path": self.path, "headers": dict(self.headers.items())})
        page = int(q.get("page", ["1"])[0])
        if "down" in q and Echo.down.is_set():
            body, status = b'{"message":"down"}', 500
        else:
            body, status = json.dumps([{"n": page}] if page <= 2 else []).encode(), 200
        if status == 200 and self.headers.get("If-None-Match") == f'"v{page}"':
            self.send_response(304)
            self.send_header("ETag", f'"v{page}"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(status)
        self.send_header("ETag", f'"v{page}"')
        self.send_header("Cache-Control", q.get("cc", ["max-age=1"])[0])
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--base-port", type=int, default=19100)
    ap.add_argument("--only", default="", help="run only checks whose name contains this")
    args = ap.parse_args()
    B = os.path.abspath(args.binary)
    PA, MOCK, PB, ECHO = args.base_port, args.base_port + 1, args.base_port + 2, args.base_port + 3
    work = tempfile.mkdtemp(prefix="contract22-")
    procs = []

    echo = ThreadingHTTPServer(("127.0.0.1", ECHO), Echo)
    threading.Thread(target=echo.serve_forever, daemon=True).start()

    env = dict(os.environ, PAGEPROXY_PORT=str(PA), PAGEPROXY_MOCK_PORT=str(MOCK), PAGEPROXY_CACHE_DIR=f"{work}/a-cache")
    log_a = open(f"{work}/a.log", "w")
    a = subprocess.Popen([B, "serve", "--config", f"{REPO}/config.json"], env=env, stdout=log_a, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    procs.append(a)
    M, E = f"http://127.0.0.1:{MOCK}", f"http://127.0.0.1:{ECHO}"
    pn = lambda n: {"scheme": "page-number", "pageSize": n}
    config_b = {
        "listen": {"address": "127.0.0.1", "port": PB},
        "cache": {"directory": f"{work}/b-cache"},
        "server": {"drainDelaySeconds": 2, "shutdownGraceSeconds": 10, "headerTimeoutSeconds": 1},
        "routes": [
            {"name": "slow", "upstream": M + "/plain/items", "pagination": pn(20), "pageTimeoutSeconds": 1, "totalTimeoutSeconds": 4, "retries": 1},
            {"name": "nexturl", "upstream": M + "/drf/items/", "pagination": {"scheme": "next-url", "nextPath": "next"}, "items": "results"},
            {"name": "few", "upstream": M + "/plain/items", "pagination": pn(20), "maxPages": 3},
            {"name": "auth", "upstream": M + "/github/items", "pagination": {"scheme": "link-header", "pageSize": 20}, "forwardHeaders": ["Authorization"]},
            {"name": "long", "upstream": M + "/drf/items/", "pagination": {"scheme": "next-url", "nextPath": "next"}, "items": "results", "concurrency": 1},
            {"name": "echo", "upstream": E + "/echo", "pagination": pn(1), "forwardHeaders": ["Authorization", "X-Trace"], "headers": {"X-Route": "r1"}},
            {"name": "sie", "upstream": E + "/sie?down=1", "pagination": pn(1), "ttlSeconds": 1, "staleIfError": True, "retries": 0},
            {"name": "nosie", "upstream": E + "/nosie?down=1", "pagination": pn(1), "ttlSeconds": 1, "retries": 0},
        ],
    }
    with open(f"{work}/b.json", "w") as f:
        json.dump(config_b, f)
    log_b = open(f"{work}/b.log", "w")
    b = subprocess.Popen([B, "serve", "--config", f"{work}/b.json"], stdout=log_b, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    procs.append(b)
    try:
        wait_http(PA, a)
        wait_http(PB, b)
        checks = [c for c in CHECKS if args.only in c.__name__]
        for check in checks:
            try:
                check(PA, PB, B, work)
            except Exception as e:  # a check that raises is a FAIL, the run goes on
                report(check.__name__, False, f"raised {type(e).__name__}: {e}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()
        echo.shutdown()
    fails = [n for w, n in results if w == "FAIL"]
    print(f"\n{len(results)} checks: {sum(w == 'PASS' for w, _ in results)} PASS, {len(fails)} FAIL, "
          f"{sum(w == 'BUG' for w, _ in results)} BUG, {sum(w == 'FIXED' for w, _ in results)} FIXED; logs in {work}")
    sys.exit(1 if fails else 0)


def items(data):
    return json.loads(data)


def merged_and_ndjson(PA, PB, B, work):
    s, h, d = get(PA, "/demo")
    report("merged", s == 200 and len(items(d)) == 250 and h.get("pageproxy-pages") == "13" and "etag" in h,
           f"{s}, {len(items(d))} items, pages={h.get('pageproxy-pages')} cache={h.get('pageproxy-cache')!r}")
    for label, target, hdr in [("Accept", "/demo", {"Accept": "application/x-ndjson"}), ("_format", "/demo?_format=ndjson", {}),
                               ("PageProxy-Format", "/demo", {"PageProxy-Format": "ndjson"})]:
        s, h, d = get(PA, target, hdr)
        report(f"ndjson by {label}", s == 200 and h["content-type"].startswith("application/x-ndjson") and d.count(b"\n") == 250,
               f"{s} {h['content-type']} {d.count(NL)} lines")


def controls(PA, PB, B, work):
    for q, hdr, want in [("_max_pages=2", ("PageProxy-Max-Pages", "2"), 40), ("_max_items=5", ("PageProxy-Max-Items", "5"), 5)]:
        s1, h1, d1 = get(PA, "/demo?" + q)
        s2, h2, d2 = get(PA, "/demo", {hdr[0]: hdr[1]})
        report(f"control {q} and {hdr[0]}", len(items(d1)) == want == len(items(d2)) and h1.get("pageproxy-truncated") == "true",
               f"{len(items(d1))} / {len(items(d2))} items, truncated={h1.get('pageproxy-truncated')}")
    for label, target, hdr in [("_fresh=1", "/demo?_fresh=1", {}), ("PageProxy-Fresh", "/demo", {"PageProxy-Fresh": "1"}),
                               ("Cache-Control: no-cache", "/demo", {"Cache-Control": "no-cache"})]:
        s, h, _ = get(PA, target, hdr)
        report(f"revalidate by {label}", "revalidated=13" in h.get("pageproxy-cache", ""), h.get("pageproxy-cache"))
    s, h, d = get(PA, "/demo?_offset=40&_limit=2&_fields=id")
    report("window and fields", items(d) == [{"id": 41}, {"id": 42}] and 'rel="next"' in h.get("link", ""), f"{d!r} Link: {h.get('link')}")
    s, h, d = get(PA, "/demo", {"PageProxy-Explain": "1"})
    report("explain (header form)", s == 200 and json.loads(d).get("pages") == 13, d[:80])
    s, h, d = get(PA, "/demo?_max_items=abc")
    report("400 bad control", s == 400 and json.loads(d)["error"]["code"] == "invalid_control", d[:100])
    s, h, d = get(PA, "/demo?mock_total=7&_other=1")
    report("upstream parameters pass through", len(items(d)) == 7, f"{len(items(d))} items for mock_total=7")


def methods_and_endpoints(PA, PB, B, work):
    s, h, d = get(PA, "/demo", method="HEAD")
    report("HEAD", s == 200 and h.get("pageproxy-items") == "250" and d == b"", f"{s} items={h.get('pageproxy-items')}")
    s, h, d = get(PA, "/demo", method="POST", body=b"x")
    report("405 with Allow", s == 405 and h.get("allow") == "GET, HEAD", f"{s} Allow: {h.get('allow')}")
    s, h, d = get(PA, "/demo", method="OPTIONS")
    report("OPTIONS (departure: 200, not 405)", s == 200 and h.get("allow") == "GET, HEAD", f"{s} Allow: {h.get('allow')}")
    for path, want in [("/healthz", b'"ok"'), ("/readyz", b'"ready"'), ("/metrics", b"# TYPE pageproxy_requests_total counter")]:
        s, h, d = get(PA, path)
        report(path, s == 200 and want in d, f"{s} {h['content-type']}")


def errors(PA, PB, B, work):
    cases = [
        ("404 unknown route", PA, "/nope", {}, 404, "unknown_route"),
        ("401 relayed", PA, "/demo", {"Authorization": "Bearer bad-token"}, 401, "upstream_client_error"),
        ("404 relayed", PA, "/demo/nope", {}, 404, "upstream_client_error"),
        ("502 first page 5xx", PA, "/demo?mock_fault=status500@1", {}, 502, "upstream_status"),
        ("502 later page 5xx", PA, "/demo?mock_fault=status500@3", {}, 502, "upstream_status"),
        ("502 bad JSON", PA, "/demo?mock_fault=malformed@2", {}, 502, "upstream_invalid_json"),
        ("504 page timeout", PB, "/slow?mock_fault=stall@2", {}, 504, "upstream_timeout"),
        ("431 headers", PA, "/demo", {"X-Big": "a" * 33000}, 431, "headers_too_large"),
        ("414 request line", PA, "/demo?x=" + "a" * 9000, {}, 414, "request_line_too_long"),
    ]
    for name, port, target, hdr, status, code in cases:
        s, h, d = get(port, target, hdr)
        got = json.loads(d)["error"]["code"]
        report(name, s == status and got == code, f"{s} {got}")
    out = raw(PA, b"GET /demo HTTP/1.1\r\nHost: x\r\nContent-Length: 1100000\r\n\r\n" + b"x" * 1100000)
    report("413 body", out.startswith(b"HTTP/1.1 413"), out.split(b"\r\n")[0].decode())
    t = time.time()
    out = raw(PB, b"GET /echo HTTP/1.1\r\nHost: x\r\n")
    report("408 slow client", out.startswith(b"HTTP/1.1 408") and b"request_timeout" in out,
           f"{out.split(CRLF)[0].decode()} after {time.time() - t:.1f} s (headerTimeoutSeconds 1)")


def upstream_rules(PA, PB, B, work):
    s, h, d = get(PA, "/plain?mock_fault=transient500@1&_explain=1&v=c22")
    f = json.loads(d)["fetches"][0]
    report("5xx retried", f["status"] == 200 and f["retries"] == 1, f"page 1: status {f['status']} after {f['retries']} retry")
    s, h, d = get(PA, "/plain?mock_fault=status501@1&_explain=1&v=c22")
    f = json.loads(d)["fetches"][0]
    report("501 not retried (departure)", f["status"] == 501 and f["retries"] == 0, f"status {f['status']}, {f['retries']} retries")
    t = time.time()
    s, h, d = get(PA, "/plain?mock_fault=status429@2&v=c22")
    report("429 with Retry-After waited out", s == 200 and time.time() - t >= 0.9, f"{s} after {time.time() - t:.2f} s")
    s, h, d = get(PA, "/demo?mock_fault=foreign@2")
    report("foreign next link refused", s == 502 and json.loads(d)["error"]["code"] == "foreign_next_link", d[:120])
    s, h, d = get(PB, "/auth?mock_leak_to=127.0.0.2:1", {"Authorization": "Bearer c22-SECRET"})
    report("foreign redirect refused, no credential", s == 502 and b"foreign_redirect" in d and b"c22-SECRET" not in d, d[:160])
    s, h, d = get(PA, "/plain?mock_past_end=404&mock_total=40")
    report("404 past the end ends the walk", s == 200 and len(items(d)) == 40, f"{s} {len(items(d))} items")
    s, h, d = get(PB, "/nexturl?mock_fault=loop@3")
    report("URL seen twice ends the walk", s == 502 and json.loads(d)["error"]["code"] == "pagination_loop", d[:120])
    s, h, d = get(PA, "/demo?mock_fault=loop@3")
    report("looping next link under a known page count (departure: not followed, data right)", s == 200 and len(items(d)) == 250, f"{s}")
    s, h, d = get(PB, "/few?mock_total=80")
    report("more pages than maxPages", s == 502 and json.loads(d)["error"]["code"] == "too_many_pages", d[:100])
    s, h, d = get(PB, "/few?mock_total=60")
    report("bug: exactly maxPages full pages (LOW)", s == 200, f"{s} {d[:100]!r}", bug=True)


def forwarding(PA, PB, B, work):
    Echo.seen.clear()
    get(PB, "/echo?c22=fw", {"Authorization": "Bearer c22-TOK", "X-Trace": "t1", "X-Other": "o", "TE": "trailers",
                             "Upgrade": "h2c", "Proxy-Authorization": "Basic zz", "Cookie": "c=1"})
    sent = Echo.seen[0]["headers"]
    names = {k.lower() for k in sent}
    ok = {"authorization", "x-trace", "x-route"} <= names and not names & {"x-other", "te", "upgrade", "proxy-authorization", "cookie"}
    report("forwarded headers and hop-by-hop", ok, f"upstream saw {sorted(names)}")
    report("default Accept", "json" in sent.get("Accept", ""), sent.get("Accept"))
    Echo.seen.clear()
    get(PB, "/echo?c22=conn", {"Connection": "keep-alive, X-Trace", "X-Trace": "t1"})
    names = {k.lower() for k in Echo.seen[0]["headers"]}
    report("bug: a header named in Connection is hop-by-hop (MEDIUM)", "x-trace" not in names, f"upstream saw X-Trace: {'x-trace' in names}", bug=True)
    Echo.seen.clear()
    get(PB, "/echo?c22=q&flag&e=")
    path = Echo.seen[0]["path"]
    report("bug: a parameter without '=' passes untouched (LOW)", "&flag&" in path, path, bug=True)


def cache(PA, PB, B, work):
    outcomes = []
    for tok in ["c22-A", "c22-A", "c22-B"]:
        s, h, d = get(PB, "/auth?mock_total=40&c22=key", {"Authorization": "Bearer " + tok})
        outcomes.append(h.get("pageproxy-cache"))
    report("cache keyed per Authorization", "hits=2" in outcomes[1] and "misses=2" in outcomes[2], outcomes)
    report("private and Vary with forwarded credentials", h.get("cache-control", "").startswith("private") and "Authorization" in h.get("vary", ""),
           f"{h.get('cache-control')}; Vary ends {h.get('vary', '')[-30:]}")
    get(PB, "/echo?c22=rv")
    time.sleep(1.5)
    Echo.seen.clear()
    s, h, d = get(PB, "/echo?c22=rv")
    inm = [e["headers"].get("If-None-Match") for e in Echo.seen]
    report("stale page revalidated, 304 refreshes", "revalidated=3" in h.get("pageproxy-cache", "") and all(inm), f"{h.get('pageproxy-cache')} If-None-Match sent: {inm}")
    s, h, d = get(PA, "/demo")
    etag = h["etag"]
    s2, h2, d2 = get(PA, "/demo", {"If-None-Match": etag})
    report("ETag and If-None-Match", s2 == 304 and d2 == b"" and re.match(r"max-age=\d+", h.get("cache-control", "")), f"{etag} -> {s2}; {h.get('cache-control')}")
    Echo.down.clear()
    get(PB, "/sie")
    get(PB, "/nosie")
    Echo.down.set()
    time.sleep(1.5)
    s, h, d = get(PB, "/sie")
    s2, _, d2 = get(PB, "/nosie")
    Echo.down.clear()
    report("stale-if-error when the route allows it", s == 200 and h.get("pageproxy-stale") == "true" and s2 == 502, f"sie {s} stale={h.get('pageproxy-stale')}; nosie {s2}")


def ndjson_failure(PA, PB, B, work):
    out = raw(PA, b"GET /demo?_format=ndjson&mock_fault=status500@3&mock_total=60 HTTP/1.1\r\nHost: x\r\n\r\n")
    lines = out.split(b"\r\n\r\n", 1)[1]
    report("NDJSON failure: error line, no last chunk", b"\n!pageproxy-error {" in lines and not out.endswith(b"0\r\n\r\n"),
           f"ends {out[-60:]!r}")
    t = time.time()
    s = socket.create_connection(("127.0.0.1", PA))
    s.sendall(b"GET /stripe?_format=ndjson&mock_latency_ms=300&mock_total=100&c22=nd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    s.recv(1)
    first = time.time() - t
    while s.recv(65536):
        pass
    report("NDJSON streams as pages arrive", first < (time.time() - t) / 2, f"first byte {first:.2f} s, end {time.time() - t:.2f} s")


def config_and_logs(PA, PB, B, work):
    bad = f"{work}/bad.json"
    with open(bad, "w") as f:
        json.dump({"routes": [{"name": "a", "upstream": "http://127.0.0.1:1/x", "pagination": {"scheme": "pages"}}]}, f)
    r = subprocess.run([B, "check-config", bad], capture_output=True, text=True)
    report("config error names file and field", r.returncode == 1 and "routes[0].pagination.scheme" in r.stdout + r.stderr and bad in r.stdout + r.stderr,
           (r.stdout + r.stderr).strip()[:140])
    r = subprocess.run([B, "serve", "--config", f"{REPO}/config.json"], env=dict(os.environ, PAGEPROXY_PORT="99999"), capture_output=True, text=True, timeout=10)
    report("env override validated", r.returncode != 0 and "PAGEPROXY_PORT" in r.stderr, r.stderr.strip()[:140])
    lines = open(f"{work}/a.log").read().splitlines() + open(f"{work}/b.log").read().splitlines()
    not_json = [l for l in lines if not l.startswith("{") or not json.loads(l)]
    secrets = [l for l in lines if "c22-SECRET" in l or "c22-TOK" in l or "bad-token" in l]
    report("logs: JSON lines, no secrets", lines and not not_json and not secrets, f"{len(lines)} lines, {len(not_json)} not JSON, {len(secrets)} with a secret")


def sigterm_drain(PA, PB, B, work):
    cfg = json.load(open(f"{work}/b.json"))
    port = PB + 4
    cfg["listen"]["port"] = port
    cfg["cache"]["directory"] = f"{work}/d-cache"
    with open(f"{work}/d.json", "w") as f:
        json.dump(cfg, f)
    p = subprocess.Popen([B, "serve", "--config", f"{work}/d.json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    wait_http(port, p)
    result = {}
    t = threading.Thread(target=lambda: result.update(r=get(port, "/long?mock_latency_ms=300&mock_total=120")))
    t.start()
    time.sleep(0.4)
    p.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    ready = get(port, "/readyz")[0]
    during = get(port, "/echo?c22=drain")[0]
    t.join(30)
    code = p.wait(30)
    s, h, d = result["r"]
    report("SIGTERM: /readyz 503, still accepting, in-flight finished, exit 0",
           ready == 503 and during == 200 and s == 200 and len(items(d)) == 120 and code == 0,
           f"readyz {ready}, new request {during}, in-flight {s} with {len(items(d))} items, exit {code}")


CHECKS = [merged_and_ndjson, controls, methods_and_endpoints, errors, upstream_rules, forwarding, cache, ndjson_failure,
          config_and_logs, sigterm_drain]

if __name__ == "__main__":
    main()
