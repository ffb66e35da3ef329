#!/usr/bin/env python3
"""The floor of sending a merged read-back straight from the entry files, against holding the bodies (issue 13).

    python3 bench/readback_send_floor.py [--binary PATH] [--runs 10]

Fills a cache directory with the case of `readback_profile.py` (`/items?mock_total=50000`, 501 entries of ~21 KB)
through PageProxy, stops it, then runs `bench/readback_send_floor.swift` (built with `swiftc -O`, with the product's
XXH64) once per run and mode, as a fresh process each time, modes interleaved: `held` (each body read into an array
of its own and verified, then sent with gathering writes: the proxy's shape) and `sendfile` (each file read into one
reused buffer and verified, its descriptor kept, then `sendfile` of each body). Prints the medians of the sending
thread's CPU ms and page faults, and of MB/s until a reader thread has every byte. Everything started is stopped by PID.
"""
import argparse, os, re, shutil, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, free_port, start_mock, stop, workdir  # noqa: E402
from cache_vs_nginx import PAGE_ITEMS, Proxy, get  # noqa: E402
from readback_profile import PATH  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "PageProxy"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--modes", default="held,sendfile",
                        help="comma-separated: held, sendfile, sendfile-cork (TCP_CORK and a plain send of each comma, "
                             "the proxy's shape), copy<KB> (the bodies pread into one reused buffer of KB, sent when full)")
    args = parser.parse_args()
    work = workdir("pageproxy-send-floor-")
    mock = proxy = None
    try:
        mock_port = free_port()
        mock = start_mock(args.binary, mock_port, 0, page_size=PAGE_ITEMS, items=250)
        proxy = Proxy("fill", args.binary, work, mock_port, 256 << 20, memo_bytes=0)
        get(proxy.port, PATH)
        stop(proxy.proc, "fill")
        source = os.path.join(work, "main.swift")
        shutil.copy(os.path.join(ROOT, "bench", "readback_send_floor.swift"), source)
        floor = os.path.join(work, "readback_send_floor")
        subprocess.run(["swiftc", "-O", "-package-name", "PageProxyBench", "-o", floor, source,
                        os.path.join(ROOT, "Sources", "PageProxyCore", "Cache", "XXHash64.swift")], check=True)
        cache = os.path.join(proxy.dir, "cache")
        rows = {}
        for _ in range(args.runs):
            for mode in args.modes.split(","):
                out = subprocess.run([floor, cache, mode], capture_output=True, text=True, check=True).stdout
                fields = dict(re.findall(r"(\w+) ([\d.]+)", out))
                rows.setdefault(mode, []).append((float(fields["MBps"]), float(fields["sender_cpu_ms"]),
                                                  float(fields["sender_faults"]), int(fields["bytes"]),
                                                  float(fields["send_ms"]), float(fields["send_cpu_ms"])))
        print(f"load average after {os.getloadavg()}")
        print("| mode | bytes | MB/s (median) | sending thread CPU ms (median) | page faults (median) "
              "| the send alone: wall ms / sending thread CPU ms (medians) |\n|---|---:|---:|---:|---:|---:|")
        for mode, values in rows.items():
            print(f"| {mode} | {values[0][3]} | {statistics.median(v[0] for v in values):.0f} | "
                  f"{statistics.median(v[1] for v in values):.1f} | {statistics.median(v[2] for v in values):.0f} | "
                  f"{statistics.median(v[4] for v in values):.2f} / {statistics.median(v[5] for v in values):.2f} |")
    finally:
        if proxy:
            stop(proxy.proc, "fill")
        stop(mock)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
