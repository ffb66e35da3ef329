#!/usr/bin/env python3
"""Where a warm 10 KB merged answer from the memo spends its time, against nginx serving the same bytes (issue 13).

    python3 bench/profile_memo.py [--binary PATH] [--before PATH] [--total 50] [--seconds 8] [--connections 32]
                                  [--mode memo|walk|ndjson] [--keep-data PATH]

Starts the mock upstream (100 items a page), PageProxy (`--binary`, default the release build; and `--before`, an
older binary, if given) with the route bench/cache_vs_nginx.py uses, warms `/items?mock_total=TOTAL` (50 items,
10 KB), saves the same bytes as a static file for nginx (1 worker, sendfile off: nginx's default), then:
  1. context switches per request of each server under `wrk -t1`, one after the other, 5 s each;
  2. `perf record -F 999 -g -p PID` on `--binary` for --seconds under `wrk -t1`, and its top entries by shared
     object, by symbol (self) and by symbol with children;
  3. `perf trace -s` for 2 s under load: system calls per request (if perf may trace here).
`--mode walk` turns the memo off (`cache.memoBytes: 0`, so every answer walks the disk cache), `--mode ndjson` asks
for NDJSON (`Accept: application/x-ndjson`, never memoized; nginx then serves the NDJSON bytes); `--keep-data` keeps
perf.data there for `perf report` by hand. Needs perf and wrk. Everything listens on 127.0.0.1; everything started is stopped by PID. Output also goes to
bench/results/profile-memo-<time>.txt.
"""
import argparse, http.client, os, subprocess, sys, threading, time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
from profile_healthz import ctx_switches  # noqa: E402


def config(port, mock_port, cache, memo=True):
    settings = {"directory": cache, "maxBytes": 256 << 20}
    if not memo:
        settings["memoBytes"] = 0
    return {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "error",
            "cache": settings,
            "routes": [{"name": "items", "upstream": f"http://127.0.0.1:{mock_port}/plain/items", "ttlSeconds": 3600,
                        "maxPages": 1000, "pagination": {"scheme": "page-number", "pageSize": 100}}]}


def get(port, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, response.getheader("PageProxy-Cache", ""), body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=B.BINARY)
    parser.add_argument("--before")
    parser.add_argument("--total", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--mode", choices=["memo", "walk", "ndjson"], default="memo")
    parser.add_argument("--keep-data", help="where to keep perf.data")
    args = parser.parse_args()
    accept = {"Accept": "application/x-ndjson"} if args.mode == "ndjson" else {}
    wrk_headers = tuple(f"{k}: {v}" for k, v in accept.items())
    B.sigterm_as_interrupt()
    B.ensure_tools("wrk", "perf")
    work = B.workdir("pageproxy-profile-memo-")
    os.makedirs(B.RESULTS, exist_ok=True)
    data = args.keep_data or os.path.join(work, "perf.data")
    path = f"/items?mock_total={args.total}"
    out = [f"mode {args.mode}; load average at start {os.getloadavg()}"]
    started = []
    try:
        mock_port = B.free_port()
        started.append(("mock", B.start_mock(args.binary, mock_port, 0, page_size=100, items=250)))
        servers = {}
        for label, binary in (("after", args.binary), ("before", args.before)):
            if not binary:
                continue
            port = B.free_port()
            directory = os.path.join(work, label)
            os.makedirs(directory)
            proc = B.start_pageproxy(binary, config(port, mock_port, os.path.join(directory, "cache"), args.mode != "walk"),
                                     directory)
            started.append((label, proc))
            get(port, path, accept)
            status, cache, body = get(port, path, accept)
            if status != 200 or (not accept and " misses=0 " not in cache):
                sys.exit(f"{label} is not warm: {status} {cache!r}")
            servers[f"PageProxy {label}"] = (port, [proc.pid], body)
        body = next(iter(servers.values()))[2]
        nginx_port = B.free_port()
        nginx = B.start_nginx(work, nginx_port, {"/memo.json": body})
        started.append(("nginx", nginx))
        workers = [int(c) for c in open(f"/proc/{nginx.pid}/task/{nginx.pid}/children").read().split()]
        servers["nginx"] = (nginx_port, [nginx.pid] + workers, body)
        out.append(f"answer: {len(body)} bytes; wrk -t1 -c{args.connections}")

        out.append("\n== requests per second and context switches per request (5 s each, one after the other) ==")
        for name, (port, pids, _) in servers.items():
            url = f"http://127.0.0.1:{port}/memo.json" if name == "nginx" else f"http://127.0.0.1:{port}{path}"
            before = sum(ctx_switches(pid) for pid in pids)
            result = B.wrk(url, args.connections, 5, threads=1, headers=() if name == "nginx" else wrk_headers)
            after = sum(ctx_switches(pid) for pid in pids)
            out.append(f"{name}: {result['requests_per_s']:,.0f} req/s, {(after - before) / result['requests']:.3f} "
                       f"context switches per request")

        port, pids, _ = servers["PageProxy after"]
        url = f"http://127.0.0.1:{port}{path}"
        result = {}
        load = threading.Thread(target=lambda: result.update(
            B.wrk(url, args.connections, args.seconds + 4, threads=1, headers=wrk_headers)))
        load.start()
        time.sleep(2)
        subprocess.run(["perf", "record", "-F", "999", "-g", "-o", data, "-p", str(pids[0]), "--", "sleep",
                        str(args.seconds)], check=True, capture_output=True, timeout=args.seconds + 60)
        load.join(timeout=args.seconds + 70)
        out.append(f"\n== perf record -F 999 -g, {args.seconds} s; wrk: {result.get('requests_per_s', 0):,.0f} req/s ==")

        def report(*extra, lines=40):
            text = subprocess.run(["perf", "report", "-i", data, "--stdio", *extra], capture_output=True, text=True,
                                  timeout=300).stdout
            return "\n".join([line for line in text.splitlines() if line.strip() and not line.startswith("#")][:lines])

        out.append("-- self time by shared object --")
        out.append(report("--no-children", "--sort", "dso", "-g", "none", lines=12))
        out.append("-- top symbols, self time --")
        out.append(report("--no-children", "--sort", "dso,sym", "-g", "none", lines=45))
        out.append("-- top symbols with their children --")
        out.append(report("--children", "--sort", "sym", "-g", "none", lines=45))

        load = threading.Thread(target=lambda: result.update(B.wrk(url, args.connections, 5, threads=1, headers=wrk_headers)))
        load.start()
        time.sleep(1)
        trace = subprocess.run(["perf", "trace", "-s", "-p", str(pids[0]), "--", "sleep", "2"], capture_output=True,
                               text=True, timeout=60)
        load.join(timeout=70)
        out.append(f"\n== perf trace -s, 2 s under wrk (wrk: {result.get('requests_per_s', 0):,.0f} req/s over 5 s) ==")
        out.append((trace.stdout + trace.stderr)[-5000:])
    finally:
        for label, proc in reversed(started):
            B.stop(proc, label)
    out.append(f"load average at end {os.getloadavg()}")
    print("\n".join(out))
    saved = os.path.join(B.RESULTS, f"profile-{args.mode}-{time.strftime('%Y%m%d-%H%M%S')}.txt")
    open(saved, "w").write("\n".join(out) + "\n")
    B.log(f"written to {saved}")


if __name__ == "__main__":
    main()
