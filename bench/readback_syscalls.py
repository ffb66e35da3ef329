#!/usr/bin/env python3
"""System calls, CPU and page faults of the requests after a restart, per thread (issue 13, read-back).

    python3 bench/readback_syscalls.py BINARY [merged|NDJSON] [restarts] [requests]

The case of `readback_profile.py` (`/items?mock_total=50000`, 501 cached pages of ~21 KB, memo off). After each
restart of the proxy, each request is counted by `perf stat --per-thread -p` with the kernel's syscall tracepoints
(counted in the kernel: unlike `strace`, they do not slow the threads, so the walk and the read-ahead race as they do
untraced). `pread64` is the read-ahead thread's blocking reads, `preadv2` the walk's inline ones (`RWF_NOWAIT`): a
file read by both threads shows as more `openat` than entries. Everything started is stopped by PID.
"""
import os, shutil, signal, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, start_mock, stop, workdir  # noqa: E402
from cache_vs_nginx import PAGE_ITEMS, Proxy, get  # noqa: E402
from readback_profile import NDJSON, PATH  # noqa: E402

EVENTS = ["task-clock", "page-faults"] + [f"syscalls:sys_enter_{name}" for name in
                                          ("openat", "close", "pread64", "preadv2", "utimensat", "newfstatat",
                                           "futex", "sendmsg", "sendfile64", "setsockopt", "mprotect")]


def main():
    binary = os.path.abspath(sys.argv[1])
    headers = NDJSON if len(sys.argv) > 2 and sys.argv[2] == "NDJSON" else {}
    restarts = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    requests = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    work = workdir("pageproxy-readback-syscalls-")
    mock_port = free_port()
    mock = start_mock(binary, mock_port, 0, page_size=PAGE_ITEMS, items=250)
    proxy = Proxy("p", binary, work, mock_port, 256 << 20, memo_bytes=0)
    try:
        get(proxy.port, PATH, headers)
        for restart in range(restarts):
            proxy.restart()
            for request in range(requests):
                counter = subprocess.Popen(["perf", "stat", "--per-thread", "-x", ",", "-e", ",".join(EVENTS),
                                            "-p", str(proxy.proc.pid)],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                time.sleep(0.3)  # perf attaches asynchronously; a bench script may wait (tests may not)
                _, _, body, seconds = get(proxy.port, PATH, headers)
                counter.send_signal(signal.SIGINT)
                threads, total = {}, {}
                for line in counter.communicate(timeout=30)[1].splitlines():
                    fields = line.split(",")
                    if len(fields) > 4 and fields[1].replace(".", "").isdigit():
                        event = fields[3].replace("syscalls:sys_enter_", "")
                        threads.setdefault(fields[0], {})[event] = float(fields[1])
                        total[event] = total.get(event, 0) + float(fields[1])
                print(f"restart {restart + 1}, request {request + 1}: {len(body) / seconds / 1e6:.0f} MB/s, load "
                      f"{os.getloadavg()[0]:.1f}")
                for name, counts in list(threads.items()) + [("all threads", total)]:
                    if counts.get("task-clock", 0) >= 0.5:
                        print(f"  {name}: " + " ".join(f"{event}={value:.1f}" if event == "task-clock" else
                                                       f"{event}={int(value)}" for event, value in counts.items() if value))
    finally:
        stop(proxy.proc, "p")
        stop(mock)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
