#!/usr/bin/env python3
"""Counts of the first and second request after a restart, per binary, by `perf stat` (issue 13, read-back).

    python3 bench/readback_perstat.py BINARY[,BINARY...] [--restarts N] [--ndjson] [--memo I,...] [--events E,...] [--record DIR]

The case of `readback_phases.py` (`/items?mock_total=50000`, 501 cached pages of ~21 KB, a 10.6 MB merged answer,
memo off, each binary over its own cache directory, filled once, restarted over it each round). For each request
`perf stat -p` counts the process's task-clock (CPU ms), context switches, CPU migrations and page faults (or the
`--events` given), and curl its time to the head; the medians are printed side by side for the first and second
request. With `--record DIR`, each binary's first and second requests are also recorded (`perf record -g`, one file
per request in DIR), to be read per thread (`perf script -F tid,ip,sym`: the walk's and the read-ahead's threads
apart). `--memo` as in `readback_phases.py` (those proxies run with the memo on and keep the answer's entry).
Everything started is stopped by PID.
"""
import argparse, os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readback_phases import curl, filled_proxies  # noqa: E402
from readback_profile import NDJSON, PATH, stat_counts  # noqa: E402

EVENTS = "task-clock,context-switches,cpu-migrations,page-faults"


def attach(pid, record=None, events=EVENTS):
    command = (["perf", "record", "-F", "10000", "-g", "-p", str(pid), "-o", record] if record
               else ["perf", "stat", "-x", ",", "-e", events, "-p", str(pid)])
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.4)  # perf attaches asynchronously; a bench script may wait (tests may not)
    return proc


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", help="comma-separated release binaries")
    parser.add_argument("--restarts", type=int, default=6)
    parser.add_argument("--ndjson", action="store_true")
    parser.add_argument("--events", default=EVENTS, help=f"perf stat's events (default {EVENTS}; tracepoints such as "
                        "syscalls:sys_enter_futex count system calls)")
    parser.add_argument("--record", help="also perf-record the first and second request of each restart into this directory")
    parser.add_argument("--send-from-files", default="", metavar="INDEXES",
                        help="comma-separated indexes (from 0) of the binaries whose proxy runs with cache.sendFromFiles on; "
                             "the others run with it off (the same binary may be listed twice: with and without)")
    parser.add_argument("--memo", default="", metavar="INDEXES",
                        help="comma-separated indexes of the binaries whose proxy runs with the memo on (64 MiB)")
    args = parser.parse_args()
    memo = {int(index) for index in args.memo.split(",") if index}
    send_from_files = {int(index) for index in args.send_from_files.split(",") if index}
    binaries = [os.path.abspath(binary) for binary in args.binaries.split(",")]
    headers = NDJSON if args.ndjson else {}
    results = {}
    print(f"load average at start {os.getloadavg()}")
    with filled_proxies(binaries, headers, "pageproxy-readback-perstat-", send_from_files, memo) as proxies:
        for round_ in range(args.restarts):
            for index, proxy in enumerate(proxies):
                proxy.restart()
                for request in (1, 2):
                    watcher = attach(proxy.proc.pid, events=args.events)
                    head, total, _ = curl(proxy.url(PATH), headers)
                    counts = stat_counts(watcher)
                    counts["head ms"], counts["total ms"] = head, total
                    results.setdefault((index, request), []).append(counts)
                if args.record:
                    proxy.restart()
                    for request in (1, 2):
                        recorder = attach(proxy.proc.pid, os.path.join(args.record, f"b{index}-q{request}-r{round_}.data"))
                        curl(proxy.url(PATH), headers)
                        stat_counts(recorder)
        print(f"load average after {os.getloadavg()}")
        names = ["head ms", "total ms"] + args.events.split(",")
        print("| binary | request | " + " | ".join(names) + " |\n|---|---|" + "---:|" * len(names))
        for index, binary in enumerate(binaries):
            for request in (1, 2):
                rows = results[(index, request)]
                cells = [f"{statistics.median(row.get(name, float('nan')) for row in rows):.1f}" for name in names]
                files = (", sendFromFiles" if index in send_from_files else "") + (", memo" if index in memo else "")
                print(f"| b{index} {binary}{files} | {request} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
