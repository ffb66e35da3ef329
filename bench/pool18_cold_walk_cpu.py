#!/usr/bin/env python3
"""Cold walks (every page a miss) and warm walks through the disk cache, two builds side by side: `perf stat -p` of each
proxy (task-clock, system calls, recvfrom) divided by the pages walked (BENCHMARKS.md, eighteenth pass).

    python3 bench/pool18_cold_walk_cpu.py AFTER_BINARY BEFORE_BINARY [ROUNDS]

60 cold walks a round (totals new to the cache, page size 100, memo off), then 5 warm passes over them; rounds
alternate which binary goes first. Everything listens on 127.0.0.1 and is stopped by PID.
"""
import os, subprocess, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B
from profile_memo import config, get

WORK = "."


def perf_during(pid, action, events="task-clock,context-switches,raw_syscalls:sys_enter,syscalls:sys_enter_recvfrom"):
    out = os.path.join(WORK, "perf.txt")
    p = subprocess.Popen(["perf", "stat", "-x,", "-e", events, "-p", str(pid), "-o", out])
    time.sleep(0.3)
    action()
    p.send_signal(2); p.wait()
    vals = {}
    for line in open(out):
        parts = line.strip().split(",")
        if len(parts) > 3 and parts[0] and parts[0][0].isdigit():
            vals[parts[2]] = float(parts[0])
    return vals

def main():
    after, before, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 2
    global WORK
    work = WORK = B.workdir("cold-walk-cpu-")
    mock_port = B.free_port()
    started = [B.start_mock(after, mock_port, 0, page_size=100, items=250)]
    results = {}
    try:
        procs = {}
        for label, binary in (("after", after), ("before", before)):
            port = B.free_port()
            d = os.path.join(work, label); os.makedirs(d)
            proc = B.start_pageproxy(binary, config(port, mock_port, d + "/cache", memo=False), d)
            started.append(proc); procs[label] = (proc, port)
        base = 1000
        for r in range(rounds):
            order = ("after", "before") if r % 2 == 0 else ("before", "after")
            for label in order:
                proc, port = procs[label]
                totals = [base + r * 1000 + i for i in range(60)]
                def cold():
                    for t in totals:
                        s, cache, body = get(port, f"/items?mock_total={t}")
                        assert s == 200 and "hits=0" in cache, cache
                def warm():
                    for _ in range(5):
                        for t in totals:
                            s, cache, body = get(port, f"/items?mock_total={t}")
                            assert s == 200 and "misses=0" in cache, cache
                pages = sum((t + 99) // 100 for t in totals)
                c = perf_during(proc.pid, cold)
                w = perf_during(proc.pid, warm)
                results.setdefault(label, []).append((c, w, pages, len(totals)))
                print(label, "round", r, "cold: %.1f us cpu/page %.2f syscalls/page %.2f recvfrom/page" % (c["task-clock"] * 1000 / pages, c["raw_syscalls:sys_enter"] / pages, c["syscalls:sys_enter_recvfrom"] / pages),
                      "| warm: %.1f us cpu/page %.2f syscalls/page" % (w["task-clock"] * 1000 / (5 * pages), w["raw_syscalls:sys_enter"] / (5 * pages)), "load", os.getloadavg()[0], flush=True)
    finally:
        for p in started: B.stop(p)

main()
