#!/usr/bin/env python3
"""Cache writes while evictions run, two PageProxy release binaries side by side (issue 15: disk writes off the pool).

    python3 bench/disk_writes_before_after.py --before PATH [--after PATH] [--seconds 8] [--rounds 3]
        [--max-bytes 2000000] [--miss-connections 8] [--hit-connections 32]

One mock upstream (no latency) and both binaries, each with its own small cache (`--max-bytes`), on loopback ports.
For each binary, in interleaved rounds (the order turning each round), two wrk (one thread each) run at once:
- misses: every request a new one-page URL, so every request is an upstream fetch and a cache write, and the cache
  passes its bound (and evicts) every few hundred writes;
- hits: one NDJSON URL stored before, a walk through the disk cache (NDJSON: not the merged-answer memo).
Then each alone: the misses (what a write costs with the CPU to itself) and the hits. Prints medians of rate, p50 and p99 of both, and the load average.
Everything started is stopped by PID.
"""
import argparse, os, sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import concurrent.futures  # noqa: E402

MISS_SCRIPT = """
local counter = 0
local prefix = tostring(math.random(1, 1000000000))
request = function()
  counter = counter + 1
  return wrk.format(nil, "/items?mock_total=20&u=" .. prefix .. "-" .. counter)
end
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default=B.BINARY)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-bytes", type=int, default=2_000_000)
    parser.add_argument("--miss-connections", type=int, default=8)
    parser.add_argument("--hit-connections", type=int, default=32)
    args = parser.parse_args()
    B.sigterm_as_interrupt()
    B.ensure_tools("wrk")
    work = B.workdir("disk-writes-before-after")
    script = os.path.join(work, "misses.lua")
    with open(script, "w") as f:
        f.write(MISS_SCRIPT)
    procs = []
    try:
        mock_port = B.free_port()
        procs.append(("mock", B.start_mock(args.after, mock_port, 0, page_size=20, items=20)))
        servers = {}
        for label, binary in (("before", args.before), ("after", args.after)):
            port = B.free_port()
            directory = os.path.join(work, label)
            os.makedirs(directory)
            config = {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "warning",
                      "cache": {"directory": os.path.join(directory, "cache"), "maxBytes": args.max_bytes},
                      "routes": [{"name": "items", "upstream": f"http://127.0.0.1:{mock_port}/plain/items",
                                  "pagination": {"scheme": "page-number", "pageSize": 20}, "ttlSeconds": 3600}]}
            procs.append((label, B.start_pageproxy(binary, config, directory)))
            servers[label] = port
        hot = "/items?mock_total=20&hot=1"
        ndjson = ("Accept: application/x-ndjson",)
        for port in servers.values():
            B.wrk(f"http://127.0.0.1:{port}{hot}", 1, 1, threads=1, headers=ndjson)  # stores the hot page
        B.log(f"machine: {B.machine_info()}")
        B.log(f"load average before: {os.getloadavg()}")
        kinds = ("miss", "hit", "missalone", "alone")
        keys = [f"{kind}_{what}" for kind in kinds for what in ("rate", "p50", "p99")]
        results = {name: {k: [] for k in keys} for name in servers}
        names = list(servers)
        for round_number in range(args.rounds):
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                base = f"http://127.0.0.1:{servers[name]}"
                with concurrent.futures.ThreadPoolExecutor(2) as pool:
                    misses = pool.submit(B.wrk, base + "/", args.miss_connections, args.seconds, 1, (), script)
                    hits = pool.submit(B.wrk, base + hot, args.hit_connections, args.seconds, 1, ndjson)
                    m, h = misses.result(), hits.result()
                missalone = B.wrk(base + "/", args.miss_connections, args.seconds, 1, (), script)
                alone = B.wrk(base + hot, args.hit_connections, args.seconds, threads=1, headers=ndjson)
                for r in (m, h, missalone, alone):
                    assert r["non_2xx_3xx"] == 0 and not any(r["socket_errors"].values()), r["raw"]
                row = results[name]
                for prefix, r in (("miss", m), ("hit", h), ("missalone", missalone), ("alone", alone)):
                    row[f"{prefix}_rate"].append(r["requests_per_s"])
                    row[f"{prefix}_p50"].append(r["p50_ms"])
                    row[f"{prefix}_p99"].append(r["p99_ms"])
                B.log(f"round {round_number + 1} {name}: misses {m['requests_per_s']:.0f}/s p50 {m['p50_ms']} p99 {m['p99_ms']} ms; "
                      f"hits {h['requests_per_s']:.0f}/s p50 {h['p50_ms']} p99 {h['p99_ms']} ms; "
                      f"misses alone {missalone['requests_per_s']:.0f}/s p50 {missalone['p50_ms']} p99 {missalone['p99_ms']} ms; "
                      f"hits alone {alone['requests_per_s']:.0f}/s p99 {alone['p99_ms']} ms; load {os.getloadavg()[0]:.2f}")
        B.log("medians:")
        for name in names:
            med = {k: B.median(v) for k, v in results[name].items()}
            B.log(f"  {name:6}  misses {med['miss_rate']:7.0f}/s p50 {med['miss_p50']:7.2f} p99 {med['miss_p99']:7.2f} ms | "
                  f"hits during {med['hit_rate']:7.0f}/s p50 {med['hit_p50']:6.2f} p99 {med['hit_p99']:7.2f} ms | "
                  f"misses alone {med['missalone_rate']:7.0f}/s p50 {med['missalone_p50']:6.2f} p99 {med['missalone_p99']:7.2f} ms | "
                  f"hits alone {med['alone_rate']:7.0f}/s p50 {med['alone_p50']:6.2f} p99 {med['alone_p99']:7.2f} ms")
        for label in servers:
            entries = sum(len(files) for _, _, files in os.walk(os.path.join(work, label, "cache")))
            B.log(f"  {label}: {entries} files in its cache directory at the end (bound {args.max_bytes} bytes)")
        B.log(f"load average after: {os.getloadavg()}")
    finally:
        for name, proc in reversed(procs):
            B.stop(proc, name)


if __name__ == "__main__":
    main()
