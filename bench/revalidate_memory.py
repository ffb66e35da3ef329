#!/usr/bin/env python3
"""Idle resident memory after rounds of concurrent revalidating walks (attack11 M2, eleventh pass).

    python3 bench/revalidate_memory.py BEFORE AFTER [--rounds 9] [--clients 40] [--total 20000] [--port 18880]

Runs each binary (side by side, one instance each, ports PORT/PORT+1 and PORT+2/PORT+3) with the built-in mock and a
`link-header` route of 20-item pages at 20 ms latency, warms 4 answers of `/demo?mock_total=TOTAL&v=0..3` (TOTAL/20
cached pages each), then, each round, sends CLIENTS concurrent `_fresh=1` requests over those 4 URLs (every page
revalidated, 304s), reads them to the end, waits 2 s and samples VmRSS. Memory, not time: the load of the machine
changes how long a round takes, not what it leaves behind. Everything listens on 127.0.0.1; each server is stopped by
its PID; a request gives up after 300 s.
"""
import argparse, concurrent.futures, json, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request


def config(port, mock_port, cache):
    return {
        "listen": {"address": "127.0.0.1", "port": port},
        "cache": {"directory": cache, "maxBytes": 268435456},
        "logLevel": "warning",
        "mock": {"address": "127.0.0.1", "port": mock_port, "items": 250, "pageSize": 20, "latencyMs": 20},
        "routes": [{"name": "demo", "upstream": f"http://127.0.0.1:{mock_port}/github/items",
                    "pagination": {"scheme": "link-header", "pageSize": 20}, "concurrency": 8}],
    }


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=300) as response:
        while response.read(1 << 16):
            pass
        return response.status


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(binary, port, args, scratch, results, name):
    cache = os.path.join(scratch, f"cache-{name}")
    path = os.path.join(scratch, f"config-{name}.json")
    with open(path, "w") as file:
        json.dump(config(port, port + 1, cache), file)
    log = open(os.path.join(scratch, f"serve-{name}.log"), "w")
    server = subprocess.Popen([binary, "serve", "--config", path], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(100):  # bounded wait for readiness
            try:
                if get(port, "/healthz") == 200:
                    break
            except OSError:
                time.sleep(0.1)
        urls = [f"/demo?mock_total={args.total}&v={v}" for v in range(4)]
        for url in urls:
            get(port, url)
        results[name].append(rss_mb(server.pid))
        for _ in range(args.rounds):
            with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
                statuses = list(pool.map(lambda i: get(port, urls[i % 4] + "&_fresh=1"), range(args.clients)))
            if any(status != 200 for status in statuses):
                sys.exit(f"{name}: statuses {statuses}")
            time.sleep(2)
            results[name].append(rss_mb(server.pid))
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--total", type=int, default=20000)
    parser.add_argument("--port", type=int, default=18880)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="revalidate-memory-")
    results = {"before": [], "after": []}
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = [pool.submit(run, args.before, args.port, args, scratch, results, "before"),
                    pool.submit(run, args.after, args.port + 2, args, scratch, results, "after")]
            for done in runs:
                done.result()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"load average at the end: {os.getloadavg()}")
    print("round  before MB  after MB")
    for index, (before, after) in enumerate(zip(results["before"], results["after"])):
        print(f"{'warm' if index == 0 else index:>5}  {before:9.1f}  {after:8.1f}")


if __name__ == "__main__":
    main()
