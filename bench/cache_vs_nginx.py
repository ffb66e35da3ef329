#!/usr/bin/env python3
"""A walk through PageProxy's disk cache, and its memo of merged answers, against nginx serving the same bytes as a
static file; read-back after a restart; NDJSON time to first item (issues 5 and 13).

    python3 bench/cache_vs_nginx.py [--seconds 5] [--rounds 3] [--connections 32] [--before PATH] [--parts ...]

Builds PageProxy in release, starts the mock upstream (`PageProxy mock`, 100 items a page) and, side by side,
PageProxy instances over their own cache directories:
  walk  the memo off (`cache.memoBytes: 0`): every answer walks the cache (merged, and NDJSON, which is never
        memoized);
  memo  the default memo.
With `--before PATH` (an older release binary, which has no `memoBytes`), the same two roles for it: its memo is
kept out of the walk by a cache bound small enough that its memo (an eighth, answers up to half of that) cannot
hold the answer. For each aggregate (10 KB, 1 MB in memory, 1.1 MB spooled past 1 MiB) it warms every instance,
checks that each answers the bytes nginx serves (`worker_processes 1`, `sendfile off` as nginx's default, `--nginx-sendfile`
to turn it on as Debian's nginx.conf does), then runs `wrk -t1 -c32` against
each in interleaved rounds and prints medians and ratios to nginx. `readback`: one request at a time after a
restart (entries read from files), MB/s. `ttfi`: NDJSON time to the first item for 2 to 20,000 pages (pages known
ahead from `rel="last"`), less the mock's own first-page time. Everything listens on 127.0.0.1; everything started
is stopped by PID.
"""
import argparse, http.client, json, os, shutil, socket, statistics, subprocess, sys, time

from benchlib import (ROOT, ensure_tools, free_port, log, machine_info, start_mock, start_nginx, stop,
                      wait_listening, workdir, wrk)

PAGE_ITEMS = 100
SIZES = [("10 KB", 50), ("1 MB", 4900), ("1.1 MB (spooled)", 5500)]
NDJSON = "Accept: application/x-ndjson"


class Proxy:
    """One PageProxy process over its own cache directory; restartable over the same directory."""

    def __init__(self, label, binary, work, mock_port, max_bytes, memo_bytes=None, send_from_files=None):
        self.label, self.binary, self.port = label, binary, free_port()
        self.dir = os.path.join(work, label)
        os.makedirs(self.dir)
        cache = {"directory": os.path.join(self.dir, "cache"), "maxBytes": max_bytes}
        if memo_bytes is not None:
            cache["memoBytes"] = memo_bytes
        # None: the binary's default (on since the twelfth pass of issue 13, off before).
        if send_from_files is not None:
            cache["sendFromFiles"] = bool(send_from_files)
        mock = f"http://127.0.0.1:{mock_port}"
        self.config = {
            "listen": {"address": "127.0.0.1", "port": self.port}, "logLevel": "error", "cache": cache,
            "routes": [
                {"name": "items", "upstream": f"{mock}/plain/items", "ttlSeconds": 3600, "maxPages": 1000,
                 "pagination": {"scheme": "page-number", "pageSize": PAGE_ITEMS}},
                # Time to first item: one item a page, pages known ahead from rel="last", nothing cached.
                {"name": "gh", "upstream": f"{mock}/github/items", "ttlSeconds": 0, "maxPages": 30000,
                 "pagination": {"scheme": "link-header", "pageSize": 1}},
            ]}
        self.proc = None
        self.start()

    def start(self, poll=0.05):
        path = os.path.join(self.dir, "config.json")
        with open(path, "w") as f:
            json.dump(self.config, f)
        log = open(os.path.join(self.dir, "log"), "ab")
        # The log (standard output) is kept only when a bench asks for more than errors (readback_phases --warm-log).
        self.proc = subprocess.Popen([self.binary, "serve", "--config", path],
                                     stdout=subprocess.DEVNULL if self.config.get("logLevel") == "error" else log,
                                     stderr=log, cwd=self.dir)
        wait_listening(self.port, self.proc, name=self.label, poll=poll)

    def restart(self, poll=0.05):
        """Stops and starts the process; `poll`: how often its port is tried until it listens (seconds)."""
        stop(self.proc, self.label)
        self.start(poll)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"


def stop_all(started, work):
    """Stops every process started (proxies, the mock, nginx), last first, by PID; removes the work directory."""
    for process in reversed(started):
        stop(process.proc if isinstance(process, Proxy) else process)
    shutil.rmtree(work, ignore_errors=True)


def get(port, path, headers=None):
    """One request on a new connection: (status, headers, body, seconds to the last byte)."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    connection.close()
    return response.status, dict(response.getheaders()), body, elapsed


def warm(proxy, path, expected, ndjson=False):
    """Two requests; the second must be all hits and give exactly `expected`."""
    headers = {"Accept": "application/x-ndjson"} if ndjson else {}
    get(proxy.port, path, headers)
    status, fields, body, _ = get(proxy.port, path, headers)
    cache = fields.get("PageProxy-Cache", "")
    if status != 200 or body != expected or (not ndjson and " misses=0 revalidated=0 stale=0 bypassed=0" not in cache):
        sys.exit(f"{proxy.label} {path} is not warm or not the same bytes: {status} {cache!r} {len(body)} bytes")


def rate(url, args, headers=()):
    result = wrk(url, args.connections, args.seconds, threads=1, headers=headers)
    if result["non_2xx_3xx"] or any(result["socket_errors"].values()):
        sys.exit(f"wrk saw errors from {url}: {result['non_2xx_3xx']} non-2xx, {result['socket_errors']}")
    return result["requests_per_s"]


def throughput(args, mock_port, nginx_port, files, instances):
    """Interleaved rounds of every case; returns {(size, case, instance): [req/s per round]}."""
    cases = []
    for size, total in SIZES:
        path = f"/items?mock_total={total}"
        cases.append((size, "nginx merged", "nginx", f"http://127.0.0.1:{nginx_port}/{total}.json", ()))
        cases.append((size, "nginx NDJSON", "nginx", f"http://127.0.0.1:{nginx_port}/{total}.ndjson", ()))
        for role, proxy in instances.items():
            kind = role.split()[-1]
            if kind == "walk":
                cases.append((size, "merged walk", role, proxy[size].url(path), ()))
                cases.append((size, "NDJSON walk", role, proxy[size].url(path), (NDJSON,)))
            else:
                cases.append((size, "merged memo", role, proxy[size].url(path), ()))
    rates = {}
    for round_number in range(args.rounds):
        log(f"round {round_number + 1} of {args.rounds}, load average {os.getloadavg()[0]:.2f}")
        # Every other round runs each size's cases in the reverse order, so that a load rising or falling within a
        # round favours neither nginx nor "after" nor "before".
        for size, _ in SIZES:
            of_size = [case for case in cases if case[0] == size]
            for _, case, who, url, headers in (of_size if round_number % 2 == 0 else reversed(of_size)):
                rates.setdefault((size, case, who), []).append(rate(url, args, headers))
    return rates


def readback(instances, samples):
    """MB/s of one request at a time right after a restart: every entry is read from its file."""
    total = 50_000  # 500 pages of 100 items, about 10.6 MB
    path = f"/items?mock_total={total}"
    results = {}
    for role, by_size in instances.items():
        if not role.endswith("walk"):
            continue
        proxy = by_size["1.1 MB (spooled)"]
        get(proxy.port, path)
        for label, headers in (("merged", {}), ("NDJSON", {"Accept": "application/x-ndjson"})):
            speeds = []
            for _ in range(samples):
                proxy.restart()
                status, fields, body, seconds = get(proxy.port, path, headers)
                if status != 200 or (label == "merged" and " misses=0 " not in fields.get("PageProxy-Cache", "")):
                    sys.exit(f"read-back of {role} failed: {status} {fields.get('PageProxy-Cache')}")
                speeds.append(len(body) / seconds / 1e6)
            results[(role, label)] = (len(body), speeds)
    return results


def first_item(port, path):
    """Seconds from sending an NDJSON request to receiving the first item's line."""
    sock = socket.create_connection(("127.0.0.1", port))
    started = time.perf_counter()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: application/x-ndjson\r\n\r\n".encode())
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            sys.exit(f"connection closed before the first item: {data[:200]!r}")
        data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        if _ and b"\n" in body.split(b"\r\n", 1)[-1]:
            elapsed = time.perf_counter() - started
            sock.close()
            if not head.startswith(b"HTTP/1.1 200"):
                sys.exit(f"{path}: {head[:100]!r}")
            return elapsed


def ttfi(instances, mock_port, samples):
    results = {}
    for pages in (2, 1000, 10_000, 20_000):
        mock_path = f"/github/items?mock_total={pages}&per_page=1"
        direct = [get(mock_port, mock_path)[3] for _ in range(samples)]
        for role, by_size in instances.items():
            if not role.endswith("walk"):
                continue
            port = by_size["10 KB"].port
            times = [first_item(port, f"/gh?mock_total={pages}&_max_items=100") for _ in range(samples)]
            results[(pages, role)] = (statistics.median(times) * 1000, statistics.median(direct) * 1000)
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--before", help="an older release binary of PageProxy to measure side by side")
    parser.add_argument("--parts", default="throughput,readback,ttfi")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--nginx-sendfile", action="store_true", help="nginx with `sendfile on` (Debian's packaged config)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    ensure_tools("nginx", "wrk")
    subprocess.run(["swift", "build", "-c", "release", "--product", "PageProxy"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "PageProxy")
    info = machine_info()
    log(json.dumps({k: info[k] for k in ("nproc", "cpu_model", "loadavg_at_start", "nginx", "wrk")}))

    work = workdir("pageproxy-bench-")
    started = []
    try:
        mock_port, nginx_port = free_port(), free_port()
        started.append(start_mock(binary, mock_port, 0, page_size=PAGE_ITEMS, items=250))
        big = 256 << 20
        # role -> size -> Proxy (one process per role, except the old binary's walk, whose bound depends on size)
        instances = {}
        walk = Proxy("after-walk", binary, work, mock_port, big, memo_bytes=0)
        memo = Proxy("after-memo", binary, work, mock_port, big)
        started += [walk, memo]
        instances["after walk"] = {size: walk for size, _ in SIZES}
        instances["after memo"] = {size: memo for size, _ in SIZES}
        if args.before:
            # Old memo: an eighth of the bound, answers up to half that; 160 KB keeps 10 KB answers out of it,
            # 15 MB the 1 MB ones, and still holds their pages.
            small = Proxy("before-walk-small", args.before, work, mock_port, 160_000)
            large = Proxy("before-walk", args.before, work, mock_port, 15_000_000)
            old_memo = Proxy("before-memo", args.before, work, mock_port, big)
            started += [small, large, old_memo]
            instances["before walk"] = {SIZES[0][0]: small, SIZES[1][0]: large, SIZES[2][0]: large}
            instances["before memo"] = {size: old_memo for size, _ in SIZES}

        files = {}
        for size, total in SIZES:
            path = f"/items?mock_total={total}"
            merged = get(walk.port, path)[2]
            ndjson = get(walk.port, path, {"Accept": "application/x-ndjson"})[2]
            files[f"/{total}.json"], files[f"/{total}.ndjson"] = merged, ndjson
            for by_size in instances.values():
                warm(by_size[size], path, merged)
                warm(by_size[size], path, ndjson, ndjson=True)
        started.append(start_nginx(work, nginx_port, files, sendfile=args.nginx_sendfile))
        for name, data in files.items():
            if get(nginx_port, name)[2] != data:
                sys.exit(f"nginx does not serve the same bytes for {name}")
        for size, total in SIZES:
            log(f"{size}: merged {len(files[f'/{total}.json'])} bytes, NDJSON {len(files[f'/{total}.ndjson'])} bytes")

        print(f"machine: {info['nproc']} cores, {info['cpu_model']}; load average at start {info['loadavg_at_start']}; "
              f"nginx sendfile {'on' if args.nginx_sendfile else 'off'}")
        if "throughput" in parts:
            rates = throughput(args, mock_port, nginx_port, files, instances)
            print(f"\nwrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} interleaved rounds (order reversed every other round), medians; "
                  f"load average after: {os.getloadavg()}")
            print("| aggregate | what | who | requests/s per round | median | / nginx |")
            print("|---|---|---|---|---:|---:|")
            for (size, case, who), values in rates.items():
                reference = "nginx NDJSON" if "NDJSON" in case else "nginx merged"
                base = statistics.median(rates[(size, reference, "nginx")])
                print(f"| {size} | {case} | {who} | {', '.join(f'{v:.0f}' for v in values)} | "
                      f"{statistics.median(values):.0f} | {statistics.median(values) / base:.2f} |")
        if "readback" in parts:
            print(f"\nread-back after a restart, one request at a time, {args.samples} restarts, median; "
                  f"load average {os.getloadavg()}")
            print("| who | output | bytes | MB/s per sample | median MB/s |")
            print("|---|---|---:|---|---:|")
            for (role, label), (size, speeds) in readback(instances, args.samples).items():
                print(f"| {role} | {label} | {size} | {', '.join(f'{s:.0f}' for s in speeds)} | {statistics.median(speeds):.0f} |")
        if "ttfi" in parts:
            print(f"\nNDJSON time to first item (`_max_items=100`, one item a page, nothing cached), median of "
                  f"{args.samples * 3}; load average {os.getloadavg()}")
            print("| pages | who | first item, ms | mock's page 1 alone, ms | difference, ms |")
            print("|---:|---|---:|---:|---:|")
            for (pages, role), (first, direct) in ttfi(instances, mock_port, args.samples * 3).items():
                print(f"| {pages} | {role} | {first:.2f} | {direct:.2f} | {first - direct:.2f} |")
    finally:
        stop_all(started, work)


if __name__ == "__main__":
    main()
