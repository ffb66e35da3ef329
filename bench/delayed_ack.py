"""Issue 12, item 5: a sequential walk over a reused upstream connection against a server that writes head and
body in two writes (bench/split_write_upstream.py, like Django's runserver) must cost no more than 1.1x a client
that opens a new connection per page. Without TCP_QUICKACK re-armed on the upstream socket, the delayed ACK of
the head holds the body back ~40 ms a page (Nagle's algorithm on the server waits for that ACK).

Measured side by side in one run, each the median of --runs walks of --items pages (page size 1, no cache):
  direct-new-conn   Python http.client, a new connection per page (the reference)
  direct-keepalive  Python http.client, one kept-alive connection (the stall, for comparison)
  pageproxy         GET /drf from PageProxy (release build), which follows `next` sequentially on one connection

    python3 bench/delayed_ack.py [--binary .build/release/PageProxy] [--items 42] [--runs 5]
"""
import argparse, http.client, json, os, sys, time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import split_write_upstream  # noqa: E402


def walk_direct(port, keep_alive):
    """Follows `next` from /items/; returns the item count."""
    target, count, conn = "/items/", 0, None
    while target:
        if conn is None or not keep_alive:
            if conn is not None:
                conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", target)
        page = json.loads(conn.getresponse().read())
        count += len(page["results"])
        nxt = page["next"]
        target = (urlsplit(nxt).path + "?" + urlsplit(nxt).query) if nxt else None
    conn.close()
    return count


def walk_proxy(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/drf")
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"PageProxy answered {response.status}: {body[:300]!r}")
    return len(json.loads(body))


def timed(function, runs, expected):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        count = function()
        times.append(time.perf_counter() - started)
        if count != expected:
            raise RuntimeError(f"walked {count} items, expected {expected}")
    return benchlib.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=benchlib.BINARY)
    parser.add_argument("--items", type=int, default=42)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    benchlib.sigterm_as_interrupt()
    binary = benchlib.ensure_binary(args.binary)
    upstream_port, proxy_port = benchlib.free_port(), benchlib.free_port()
    upstream = split_write_upstream.serve(upstream_port, args.items, 1)
    work = benchlib.workdir("pageproxy-delayed-ack-")
    config = {
        "listen": {"address": "127.0.0.1", "port": proxy_port}, "cache": {"maxBytes": 0}, "logLevel": "error",
        "routes": [{"name": "drf", "upstream": f"http://127.0.0.1:{upstream_port}/items/", "items": "results",
                    "pagination": {"scheme": "next-url", "nextPath": "next"}, "ttlSeconds": 0, "maxPages": 100000}],
    }
    proxy = None
    try:
        proxy = benchlib.start_pageproxy(binary, config, work)
        walk_proxy(proxy_port)  # warm-up: the first connection and the process's first request
        results = {
            "direct-new-conn": timed(lambda: walk_direct(upstream_port, keep_alive=False), args.runs, args.items),
            "direct-keepalive": timed(lambda: walk_direct(upstream_port, keep_alive=True), args.runs, args.items),
            "pageproxy": timed(lambda: walk_proxy(proxy_port), args.runs, args.items),
        }
    finally:
        benchlib.stop(proxy, "PageProxy")
        upstream.shutdown()
    reference = results["direct-new-conn"]
    print(f"{args.items} pages of 1 item, median of {args.runs} walks; load average {os.getloadavg()}")
    for name, seconds in results.items():
        print(f"  {name:17s} {seconds * 1000:8.1f} ms   {seconds / reference:5.2f}x direct-new-conn")
    ratio = results["pageproxy"] / reference
    print(f"pageproxy / direct-new-conn = {ratio:.2f} ({'within' if ratio <= 1.1 else 'over'} 1.1)")


if __name__ == "__main__":
    main()
