#!/usr/bin/env python3
"""An offset walk's CPU in the proxy, two builds side by side (BENCHMARKS.md, twentieth pass: offset walks' page
checks, fix39). `perf stat -e task-clock -p` of each proxy over cold walks (every page a miss) and warm walks (every
page from the disk cache, memo off so each request walks its pages again), divided by the pages walked.

    python3 bench/offset_walk_checks.py AFTER_BINARY BEFORE_BINARY [ROUNDS] [LISTS]

A `drf` offset route (limit 20, `count` total) over the mock (a separate process, started from BEFORE_BINARY): lists
of 10,000 items (500 pages), plain and with every 5th item hidden (`mock_hide_every=5`: a filtered first page, so the
second page is compared with the first). Rounds alternate which binary goes first. Loopback only; every request has
a timeout; every process is stopped by its PID.
"""
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B
from profile_memo import get

TOTAL, LIMIT = 10_000, 20


def config(port, mock_port, cache):
    return {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "error",
            "cache": {"directory": cache, "maxBytes": 1 << 30, "memoBytes": 0},
            "routes": [{"name": "drf", "upstream": f"http://127.0.0.1:{mock_port}/drf/items/", "ttlSeconds": 3600,
                        "maxPages": 1000, "items": "results",
                        "pagination": {"scheme": "offset", "limit": LIMIT, "totalItemsPath": "count"}}]}


def task_clock_during(pid, work, action):
    out = os.path.join(work, "perf.txt")
    p = subprocess.Popen(["perf", "stat", "-x,", "-e", "task-clock", "-p", str(pid), "-o", out])
    time.sleep(0.3)
    action()
    p.send_signal(2); p.wait()
    for line in open(out):
        parts = line.strip().split(",")
        if len(parts) > 3 and parts[0] and parts[0][0].isdigit() and parts[2] == "task-clock":
            return float(parts[0])
    raise RuntimeError("no task-clock in " + out)


def main():
    after, before = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    lists = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    work = B.workdir("offset-walk-checks-")
    mock_port = B.free_port()
    started = [B.start_mock(before, mock_port, 0, page_size=LIMIT, items=250)]
    try:
        procs = {}
        for label, binary in (("after", after), ("before", before)):
            port = B.free_port()
            d = os.path.join(work, label); os.makedirs(d)
            proc = B.start_pageproxy(binary, config(port, mock_port, d + "/cache"), d)
            started.append(proc); procs[label] = (proc, port)
        pages = (TOTAL + LIMIT - 1) // LIMIT
        for r in range(rounds):
            order = ("after", "before") if r % 2 == 0 else ("before", "after")
            for kind, extra in (("plain", ""), ("filtered", "&mock_hide_every=5")):
                for label in order:
                    proc, port = procs[label]
                    paths = [f"/drf?mock_total={TOTAL}{extra}&x={r}-{i}" for i in range(lists)]
                    def cold():
                        for p in paths:
                            s, cache, body = get(port, p)
                            assert s == 200 and "hits=0" in cache, (p, s, cache, body[:300])
                    def warm():
                        for p in paths:
                            s, cache, body = get(port, p)
                            assert s == 200 and "misses=0" in cache, (p, s, cache)
                    c = task_clock_during(proc.pid, work, cold)
                    w = task_clock_during(proc.pid, work, warm)
                    print(f"round {r} {kind:8} {label:6} cold {c * 1000 / (lists * pages):6.1f} us/page   "
                          f"warm {w * 1000 / (lists * pages):6.1f} us/page   load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for p in started: B.stop(p)


main()
