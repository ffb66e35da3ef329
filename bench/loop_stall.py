#!/usr/bin/env python3
"""How long the epoll loop stalls while other clients churn the caches (issue 13, sixth pass): a memo hit is answered
on the loop's own thread, so every lock the memo path takes (the memo's, the page store's) is felt by every socket
while another thread holds it.

    python3 bench/loop_stall.py AFTER_BINARY [BEFORE_BINARY] [--rounds 2] [--fill-seconds 20] [--requests 3000]

For each binary (rounds alternate the order), a fresh PageProxy (cache `--cache-mib`, memo `--memo-mib`) and the
mock upstream (no latency, 100 items a page). A hot 10 KB merged answer is warmed into the memo, then:
  quiet   `--requests` probes with nothing else running: a memo hit of the hot answer and a `/healthz`, alternating,
          each on its own keep-alive connection, one at a time (Python, so ~0.1 ms of the time is the client's own);
  churn   the same probes while wrk drives the caches (after `--fill-seconds` of the same churn, so that the store is
          full and evicting):
            cold   `-c8`: distinct one-page targets never asked before (`mock_total=20&cold=N`): a fetch, a write, an
                   eviction once the store passes 95 % of its bound, a memo answer kept (the memo full: one dropped);
            warm   `-c4`: a cycle over `--warm` targets of five 100-item pages (`mock_total=500&warm=J`, ~100 KB each),
                   more than the memo holds and more than the store's 64 MiB in-memory bound: each a walk through
                   the store that reads its files, keeps them in memory (`CachePolicy.keepsFirstRead`) and passes
                   that bound again and again.
Reports p50 / p99 / p99.9 / max of each probe (ms), how many memo probes were not memo hits (the hot answer's page
was evicted: a walk), the churn's request rate, and the load average. Everything listens on 127.0.0.1; everything
started is stopped by PID.
"""
import argparse, http.client, os, shutil, signal, subprocess, sys, time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

HOT = "/items?mock_total=50"

COLD_LUA = """
local counter = 0
local prefix = "x"
local items = "20"
function init(args) prefix = args[1] or "x"; items = args[2] or "20" end
function request()
  counter = counter + 1
  return wrk.format("GET", "/items?mock_total=" .. items .. "&cold=" .. prefix .. "-" .. counter)
end
"""

WARM_LUA = """
local counter = 0
local size = 900
function init(args) size = tonumber(args[1]) or 900 end
function request()
  counter = (counter + 1) % size
  return wrk.format("GET", "/items?mock_total=500&warm=" .. counter)
end
"""


def config(port, mock_port, cache, cache_mib, memo_mib):
    return {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "error",
            "cache": {"directory": cache, "maxBytes": cache_mib << 20, "memoBytes": memo_mib << 20},
            "routes": [{"name": "items", "upstream": f"http://127.0.0.1:{mock_port}/plain/items", "ttlSeconds": 3600,
                        "maxPages": 1000, "pagination": {"scheme": "page-number", "pageSize": 100}}]}


def percentile(sorted_values, fraction):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def probe(port, requests):
    """Alternates a memo hit of HOT and a /healthz, each on its own keep-alive connection; latencies in ms."""
    memo = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    health = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = {"memo": [], "healthz": []}
    walked = 0
    for _ in range(requests):
        for name, connection, path in (("memo", memo, HOT), ("healthz", health, "/healthz")):
            started = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            times[name].append((time.perf_counter() - started) * 1000)
            if name == "memo" and "misses=0" not in (response.getheader("PageProxy-Cache") or "misses=0"):
                walked += 1
            assert response.status == 200, (path, response.status)
    memo.close()
    health.close()
    return times, walked


def summary(times):
    s = sorted(times)
    return (percentile(s, 0.5), percentile(s, 0.99), percentile(s, 0.999), s[-1] if s else float("nan"))


def over(times, ms):
    return sum(1 for t in times if t > ms)


def start_churn(port, work, label, warm, seconds, cold_items):
    cold_script = os.path.join(work, "cold.lua")
    warm_script = os.path.join(work, "warm.lua")
    open(cold_script, "w").write(COLD_LUA)
    open(warm_script, "w").write(WARM_LUA)
    url = f"http://127.0.0.1:{port}"
    procs = []
    for script, connections, arguments in ((cold_script, 8, [f"{label}{time.time_ns()}", str(cold_items)]),
                                           (warm_script, 4, [str(warm)])):
        out = open(os.path.join(work, f"wrk-{os.path.basename(script)}-{time.time_ns()}.txt"), "w")
        procs.append((subprocess.Popen(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout=30s", "-s", script,
                                        url, "--", *arguments], stdout=out, stderr=subprocess.STDOUT), out))
    return procs


def stop_churn(procs):
    rates = []
    for proc, out in procs:
        # wrk prints its totals on SIGINT; SIGTERM (and SIGKILL) only if it does not stop.
        try:
            os.kill(proc.pid, signal.SIGINT)
            proc.wait(timeout=10)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            B.stop(proc, "wrk")
        out.close()
        text = open(out.name).read()
        rate = [line.split()[-1] for line in text.splitlines() if line.startswith("Requests/sec:")]
        rates.append(float(rate[0]) if rate else float("nan"))
    return rates


def run_one(label, binary, mock_port, args):
    work = B.workdir(f"loop-stall-{label}-")
    port = B.free_port()
    proc = B.start_pageproxy(binary, config(port, mock_port, os.path.join(work, "cache"), args.cache_mib, args.memo_mib), work)
    try:
        probe(port, 5)
        quiet, _ = probe(port, args.requests)
        churn = start_churn(port, work, label, args.warm, args.fill_seconds + 600, args.cold_items)
        try:
            time.sleep(args.fill_seconds)  # the churn fills the store until it evicts; nothing is waited for
            load = os.getloadavg()[0]
            busy, walked = probe(port, args.requests)
            load = max(load, os.getloadavg()[0])
        finally:
            rates = stop_churn(churn)
        return quiet, busy, walked, rates, load
    finally:
        B.stop(proc, "PageProxy")
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("after")
    parser.add_argument("before", nargs="?")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fill-seconds", type=int, default=20)
    parser.add_argument("--requests", type=int, default=3000, help="probes of each kind a phase")
    parser.add_argument("--cache-mib", type=int, default=96)
    parser.add_argument("--cold-items", type=int, default=20, help="items of each cold target (one page; ~200 B an item)")
    parser.add_argument("--memo-mib", type=int, default=8)
    parser.add_argument("--warm", type=int, default=700, help="warm targets cycled (~100 KB of pages each)")
    args = parser.parse_args()
    B.sigterm_as_interrupt()
    B.ensure_tools("wrk")
    binaries = [("after", args.after)] + ([("before", args.before)] if args.before else [])
    mock = None
    rows = []
    try:
        mock_port = B.free_port()
        mock = B.start_mock(args.after, mock_port, 0, page_size=100, items=250)
        print(f"machine: {os.cpu_count()} cores; load average at start {os.getloadavg()}", flush=True)
        for round_number in range(args.rounds):
            for label, binary in (binaries if round_number % 2 == 0 else list(reversed(binaries))):
                quiet, busy, walked, rates, load = run_one(label, binary, mock_port, args)
                rows.append((round_number + 1, label, quiet, busy, walked, rates, load))
                B.log(f"round {round_number + 1} {label}: done, load {load:.2f}")
    finally:
        B.stop(mock, "mock")
    print(f"\ncache {args.cache_mib} MiB, memo {args.memo_mib} MiB, {args.requests} probes of each kind a phase, "
          f"churn after {args.fill_seconds} s; load average at the end {os.getloadavg()}")
    print("| round | binary | probe | quiet p50 / p99 / p99.9 / max ms | churn p50 / p99 / p99.9 / max ms | "
          "churn probes > 5 ms | memo probes that walked | churn req/s cold, warm | load |")
    print("|---|---|---|---|---|---:|---:|---|---:|")
    for round_number, label, quiet, busy, walked, rates, load in rows:
        for kind in ("memo", "healthz"):
            q, b = summary(quiet[kind]), summary(busy[kind])
            print(f"| {round_number} | {label} | {kind} | {' / '.join(f'{v:.2f}' for v in q)} | "
                  f"{' / '.join(f'{v:.2f}' for v in b)} | {over(busy[kind], 5)} | {walked if kind == 'memo' else ''} | "
                  f"{rates[0]:,.0f}, {rates[1]:,.0f} | {load:.1f} |")


if __name__ == "__main__":
    main()
