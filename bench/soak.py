#!/usr/bin/env python3
"""Soak (issue 8): a bounded-time load at 256 connections mixing repeated ("cached") aggregates, uncached
aggregates, NDJSON streams and /healthz, with every error counted and PageProxy's resident memory sampled.

    python3 bench/soak.py [--seconds 180] [--connections 256] [--latency-ms 20]

Python stdlib only: an asyncio HTTP/1.1 keep-alive client of its own, so that every answer can be checked:
status 2xx; the body complete (Content-Length read in full, or chunked to its terminating zero chunk — an NDJSON
stream without it counts as truncated); PageProxy-Items and the NDJSON line count equal to the expected items;
and for a sample (every --verify-every-th answer of each kind) every item parsed and its ids checked in order.
Beside the load, a prober opens a fresh connection for GET /healthz every second (a liveness probe), so the
proxy's connection cap (server.maxConnections, set here to 2048) must allow the load plus probes.

The load's connections are split by role: 1/4 each repeat a few fixed aggregates ("cached": answered from the
page cache once it exists; the `PageProxy-Cache` header is counted), ask for aggregates with a unique query
(`bench_run=<n>`, plus `Cache-Control: no-cache`; never cacheable), read NDJSON streams (`_format=ndjson`,
alternating fixed and unique queries), and hit /healthz. Roles are fixed per connection so that at most
3/4 x connections x route concurrency (4) upstream requests are open at once, under the mock's own
1,024-connection cap.

Starts the mock upstream and PageProxy (release build) on 127.0.0.1 and stops both by PID at the end, also on
error or Ctrl-C. Writes bench/results/soak-<time>.json (and soak-latest.json / soak-latest.md) and prints
markdown. Exit status 1 if any error was seen.
"""
import argparse, asyncio, json, os, shutil, subprocess, sys, time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

PAGE_SIZE = 20
CACHED_TOTALS = [100, 200, 400]          # 5, 10, 20 pages
UNCACHED_TOTALS = [100, 200]
NDJSON_TOTAL = 400                       # 20 pages
HEALTHZ = b'{"status":"ok"}'


class Truncated(Exception):
    pass


class Stats:
    def __init__(self):
        self.kinds = {}

    def kind(self, name):
        return self.kinds.setdefault(name, {"ok": 0, "errors": 0, "error_samples": [], "error_types": {},
                                            "verified": 0, "latencies": [], "cache": {}})

    def ok(self, name, seconds, cache):
        k = self.kind(name)
        k["ok"] += 1
        if len(k["latencies"]) < 200000:
            k["latencies"].append(seconds)
        key = str(cache)
        k["cache"][key] = k["cache"].get(key, 0) + 1

    def error(self, name, what):
        k = self.kind(name)
        k["errors"] += 1
        kind = what.split(":")[0]
        k["error_types"][kind] = k["error_types"].get(kind, 0) + 1
        if len(k["error_samples"]) < 20:
            k["error_samples"].append(f"{time.strftime('%H:%M:%S')} {what}")


async def read_response(reader):
    """One response: (status, headers dict lower-case, body bytes, chunked?). Raises Truncated on early close."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        raise Truncated(f"truncated: connection closed in the head after {len(e.partial)} bytes")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise ValueError(f"not a status line: {lines[0][:80]!r}")
    status = int(parts[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    chunked = "chunked" in headers.get("transfer-encoding", "").lower()
    try:
        if chunked:
            parts = []
            while True:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    # The trailer section: field lines (if the client asked with TE: trailers), then an empty line.
                    while await reader.readuntil(b"\r\n") != b"\r\n":
                        pass
                    break
                parts.append(await reader.readexactly(size))
                if await reader.readexactly(2) != b"\r\n":
                    raise Truncated("bad chunk: missing CRLF after chunk data")
            body = b"".join(parts)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
    except asyncio.IncompleteReadError as e:
        raise Truncated(f"truncated: connection closed mid-body ({'chunked, no terminating chunk' if chunked else 'short of Content-Length'}, {len(e.partial)} bytes in the last read)")
    return status, headers, body, chunked


def check(kind, target_total, status, headers, body, chunked, full):
    """Raises ValueError on a wrong answer; returns the PageProxy-Cache header value."""
    if not 200 <= status < 300:
        raise ValueError(f"status {status}: {body[:200]!r}")
    if kind == "healthz":
        if body.strip() != HEALTHZ:
            raise ValueError(f"healthz body {body[:100]!r}")
        return None
    if kind == "ndjson":
        if not chunked:
            raise ValueError("ndjson answer not chunked")
        if b"!pageproxy-error" in body:
            raise ValueError(f"stream error line: {body[body.index(b'!pageproxy-error'):][:200]!r}")
        lines = body.count(b"\n")
        if lines != target_total or not body.endswith(b"\n"):
            raise ValueError(f"ndjson lines {lines} != {target_total}")
        if full:
            ids = [json.loads(line)["id"] for line in body.split(b"\n")[:-1]]
            if ids != list(range(1, target_total + 1)):
                raise ValueError("ndjson ids out of order or wrong")
        return headers.get("pageproxy-cache")
    if headers.get("pageproxy-items") != str(target_total):
        raise ValueError(f"PageProxy-Items {headers.get('pageproxy-items')} != {target_total}")
    if not (body.startswith(b"[") and body.endswith(b"]")):
        raise ValueError("merged body is not one array")
    if full:
        items = json.loads(body)
        if [i["id"] for i in items] != list(range(1, target_total + 1)):
            raise ValueError("merged ids out of order or wrong")
    return headers.get("pageproxy-cache")


class Load:
    def __init__(self, args, port, stats):
        self.args, self.port, self.stats = args, port, stats
        self.deadline = 0.0
        self.counter = 0
        self.verify_counts = {}
        self.died_at = None

    def request_for(self, role, n):
        """(kind, target, extra header lines, expected items)."""
        self.counter += 1
        uniq = f"{os.getpid()}-{self.counter}"
        if role == "cached":
            total = CACHED_TOTALS[n % len(CACHED_TOTALS)]
            return "cached", f"/github?mock_total={total}", "", total
        if role == "uncached":
            total = UNCACHED_TOTALS[n % len(UNCACHED_TOTALS)]
            return "uncached", f"/github?mock_total={total}&bench_run={uniq}", "Cache-Control: no-cache\r\n", total
        if role == "ndjson":
            if n % 2:
                return "ndjson", f"/github?mock_total={NDJSON_TOTAL}&_format=ndjson&bench_run={uniq}", "", NDJSON_TOTAL
            return "ndjson", f"/github?mock_total={NDJSON_TOTAL}&_format=ndjson", "", NDJSON_TOTAL
        return "healthz", "/healthz", "", 0

    async def connection(self, role):
        reader = writer = None
        n = 0
        while time.monotonic() < self.deadline:
            kind, target, extra, total = self.request_for(role, n)
            n += 1
            try:
                if writer is None:
                    reader, writer = await asyncio.wait_for(
                        asyncio.open_connection("127.0.0.1", self.port, limit=1 << 22), 10)
                start = time.monotonic()
                writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
                await writer.drain()
                status, headers, body, chunked = await asyncio.wait_for(read_response(reader), self.args.timeout)
                seconds = time.monotonic() - start
                c = self.verify_counts[kind] = self.verify_counts.get(kind, 0) + 1
                full = c % self.args.verify_every == 0
                cache = check(kind, total, status, headers, body, chunked, full)
                if full:
                    self.stats.kind(kind)["verified"] += 1
                self.stats.ok(kind, seconds, cache)
                if headers.get("connection", "").lower() == "close":
                    writer.close()
                    reader = writer = None
            except asyncio.CancelledError:
                raise
            except (Truncated, ValueError) as e:
                self.stats.error(kind, f"{type(e).__name__}: {e}")
                writer = self._drop(writer)
            except asyncio.TimeoutError:
                self.stats.error(kind, f"timeout: no complete answer within {self.args.timeout}s to {target}")
                writer = self._drop(writer)
            except OSError as e:
                self.stats.error(kind, f"connection error: {type(e).__name__}: {e}")
                writer = self._drop(writer)
                await asyncio.sleep(0.05)
        self._drop(writer)

    @staticmethod
    def _drop(writer):
        if writer is not None:
            writer.close()
        return None

    async def prober(self):
        """A liveness probe: a new connection for GET /healthz every second; its latency is recorded."""
        while time.monotonic() < self.deadline:
            start = time.monotonic()
            writer = None
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 5)
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                await writer.drain()
                status, headers, body, chunked = await asyncio.wait_for(read_response(reader), 5)
                check("healthz", 0, status, headers, body, chunked, True)
                self.stats.kind("probe")["verified"] += 1
                self.stats.ok("probe", time.monotonic() - start, None)
            except (Truncated, ValueError, OSError, asyncio.TimeoutError) as e:
                self.stats.error("probe", f"{type(e).__name__}: {e}")
            finally:
                self._drop(writer)
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - start)))

    async def sampler(self, procs, samples, every):
        t0 = time.monotonic()
        while time.monotonic() < self.deadline:
            row = {"t": round(time.monotonic() - t0, 1)}
            dead = [name for name, proc in procs.items() if proc.poll() is not None]
            if dead:
                for name in dead:
                    self.stats.error("process", f"{name} exited with status {procs[name].returncode} "
                                                f"at t={row['t']} s")
                    B.log(f"  t={row['t']:6.1f}s  {name} EXITED with status {procs[name].returncode}; stopping the load")
                self.died_at = row["t"]
                self.deadline = time.monotonic()  # every connection loop ends after its current request
                return
            for name, proc in procs.items():
                pid = proc.pid
                m = B.proc_memory(pid)
                row[name + "_rss_kB"] = m["VmRSS_kB"]
                row[name + "_threads"] = m["threads"]
                row[name + "_fds"] = len(os.listdir(f"/proc/{pid}/fd"))
            row["requests"] = sum(k["ok"] + k["errors"] for k in self.stats.kinds.values())
            samples.append(row)
            B.log(f"  t={row['t']:6.1f}s  PageProxy RSS {row['pageproxy_rss_kB'] / 1024:6.1f} MB  "
                  f"fds {row['pageproxy_fds']:5}  threads {row['pageproxy_threads']:3}  requests {row['requests']}")
            await asyncio.sleep(every)

    async def run(self, procs, samples):
        self.deadline = time.monotonic() + self.args.seconds
        roles = ["cached", "uncached", "ndjson", "healthz"]
        tasks = [asyncio.create_task(self.connection(roles[i % 4])) for i in range(self.args.connections)]
        tasks.append(asyncio.create_task(self.prober()))
        tasks.append(asyncio.create_task(self.sampler(procs, samples, self.args.sample_every)))
        done, pending = await asyncio.wait(tasks, timeout=self.args.seconds + self.args.timeout + 15)
        for t in pending:
            t.cancel()
        for t in done:
            if t.exception():
                raise t.exception()
        return len(pending)


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p / 100))]


def report(res):
    lines = [f"Soak: {res['config']['seconds']} s, {res['config']['connections']} connections "
             f"(+1 probe connection a second), mock latency {res['config']['latency_ms']} ms per page, "
             f"route concurrency 4\n",
             "| kind | answers | per second | errors | p50 ms | p99 ms | max ms | bodies fully verified | PageProxy-Cache |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, k in res["kinds"].items():
        lines.append(f"| {name} | {k['ok']:,} | {k['ok'] / res['config']['seconds']:,.1f} | {k['errors']} | "
                     f"{k['p50_ms']:.1f} | {k['p99_ms']:.1f} | {k['max_ms']:.1f} | {k['verified']:,} | "
                     f"{', '.join(f'{c}: {n}' for c, n in k['cache'].items()) if name not in ('healthz', 'probe') else ''} |")
    r = res["rss_summary"]
    lines += ["", "| PageProxy VmRSS (MB) | first | median | max | last | last − first |", "|---|---:|---:|---:|---:|---:|",
              f"| sampled every {res['config']['sample_every']} s under load ({r['samples']} samples) | {r['first'] / 1024:.1f} | "
              f"{r['median'] / 1024:.1f} | {r['max'] / 1024:.1f} | {r['last'] / 1024:.1f} | {(r['last'] - r['first']) / 1024:+.1f} |",
              "", (f"Idle before the load: {res['memory']['idle']['VmRSS_kB'] / 1024:.1f} MB; VmHWM at the end: "
                   f"{res['memory']['after']['VmHWM_kB'] / 1024:.1f} MB; after the load (connections closed, "
                   f"{res['config']['settle']} s later): {res['memory']['settled']['VmRSS_kB'] / 1024:.1f} MB; "
                   f"open fds at the end of the load {res['samples'][-1]['pageproxy_fds']} and after it "
                   f"{res['memory']['settled_fds']}." if "settled" in res["memory"] else
                   f"**PageProxy died at t≈{res.get('died_at_s')} s** (its output: `{res.get('crash_log')}`); "
                   f"idle before the load: {res['memory']['idle']['VmRSS_kB'] / 1024:.1f} MB."),
              "", f"Errors in all: **{res['errors']}**" + (f" — {res['error_samples']}" if res['errors'] else "")]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=180, help="length of the load (default 180)")
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--latency-ms", type=int, default=20, help="mock latency per page")
    parser.add_argument("--sample-every", type=float, default=5.0, help="seconds between RSS samples")
    parser.add_argument("--verify-every", type=int, default=10, help="parse every item of every Nth answer per kind")
    parser.add_argument("--timeout", type=float, default=30.0, help="per answer")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait after the load before the last RSS")
    parser.add_argument("--log-level", default="info", help="PageProxy logLevel (request lines go to /dev/null)")
    parser.add_argument("--binary", default=B.BINARY)
    args = parser.parse_args()
    if not (5 <= args.seconds <= 3600 and 1 <= args.connections <= 1024):
        sys.exit("bounds: --seconds 5..3600, --connections 1..1024")

    B.sigterm_as_interrupt()
    binary = B.ensure_binary(os.path.abspath(args.binary))
    os.makedirs(B.RESULTS, exist_ok=True)
    work = B.workdir("pageproxy-soak-")
    mock_port, pp_port = B.free_port(), B.free_port()
    config = {"listen": {"address": "127.0.0.1", "port": pp_port}, "logLevel": args.log_level,
              "cache": {"directory": os.path.join(work, "cache")},
              "server": {"maxConnections": 2048},
              "routes": [{"name": "github", "upstream": f"http://127.0.0.1:{mock_port}/github/items",
                          "pagination": {"scheme": "link-header", "pageSize": PAGE_SIZE}, "concurrency": 4}]}
    res = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": B.machine_info(),
           "config": {**vars(args), "routes": config["routes"]}}
    stats, samples = Stats(), []
    mock = pp = None
    try:
        mock = B.start_mock(binary, mock_port, args.latency_ms, page_size=PAGE_SIZE)
        path = os.path.join(work, "pageproxy.json")
        with open(path, "w") as f:
            json.dump(config, f)
        pp = subprocess.Popen([binary, "serve", "--config", path], stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(work, "stderr.log"), "wb"), cwd=work)
        B.wait_listening(pp_port, pp, name="PageProxy")
        time.sleep(1.0)
        res["memory"] = {"idle": B.proc_memory(pp.pid)}
        B.log(f"soak: {args.seconds} s at {args.connections} connections; PageProxy pid {pp.pid}, "
              f"idle RSS {res['memory']['idle']['VmRSS_kB'] / 1024:.1f} MB")
        load = Load(args, pp_port, stats)
        res["stuck_tasks"] = asyncio.run(load.run({"pageproxy": pp, "mock": mock}, samples))
        res["died_at_s"] = load.died_at
        if pp.poll() is None:
            res["memory"]["after"] = B.proc_memory(pp.pid)
            time.sleep(args.settle)
            res["memory"]["settled"] = B.proc_memory(pp.pid)
            res["memory"]["settled_fds"] = len(os.listdir(f"/proc/{pp.pid}/fd"))
        else:
            if load.died_at is None:
                stats.error("process", f"PageProxy exited with {pp.returncode} during the soak")
            crash = os.path.join(B.RESULTS, f"soak-pageproxy-died-{time.strftime('%Y%m%d-%H%M%S')}.log")
            shutil.copyfile(os.path.join(work, "stderr.log"), crash)
            res["crash_log"] = os.path.relpath(crash, B.ROOT)
            B.log(f"PageProxy died (status {pp.returncode}); its stderr: {crash}")
    finally:
        B.stop(pp, "PageProxy")
        B.stop(mock, "mock")
    res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    res["machine"]["loadavg_at_end"] = os.getloadavg()
    res["samples"] = samples
    res["kinds"] = {}
    for name, k in stats.kinds.items():
        lat = k.pop("latencies")
        res["kinds"][name] = {**k, "p50_ms": pct(lat, 50) * 1000, "p99_ms": pct(lat, 99) * 1000,
                              "max_ms": max(lat, default=float("nan")) * 1000}
    res["errors"] = sum(k["errors"] for k in res["kinds"].values()) + res.get("stuck_tasks", 0)
    res["error_samples"] = [s for k in res["kinds"].values() for s in k["error_samples"]][:10]
    # The t=0 sample is taken before the first answer; "first" is the first sample under load.
    rss = [s["pageproxy_rss_kB"] for s in samples if s["t"] > 0] or [s["pageproxy_rss_kB"] for s in samples]
    res["rss_summary"] = {"samples": len(rss), "first": rss[0], "median": B.median(rss), "max": max(rss),
                          "last": rss[-1]}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for name in (f"soak-{stamp}.json", "soak-latest.json"):
        with open(os.path.join(B.RESULTS, name), "w") as f:
            json.dump(res, f, indent=1)
    text = report(res)
    with open(os.path.join(B.RESULTS, "soak-latest.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    sys.exit(1 if res["errors"] else 0)


if __name__ == "__main__":
    main()
