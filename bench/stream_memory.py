#!/usr/bin/env python3
"""Peak resident memory and throughput of PageProxy's two outputs as the number of pages grows (issue 6).

    python3 bench/stream_memory.py [--pages 10,100,1000] [--items-per-page 100] [--runs 1]

For each size and output (NDJSON, merged JSON) it starts a fresh release-built proxy, so that the kernel's
high-water mark (VmHWM in /proc/<pid>/status) belongs to that one answer, streams the answer from the built-in
mock upstream (latency 0) to nowhere, checks the item count, and prints a markdown table. Python standard library
only; everything listens on 127.0.0.1 and is stopped by PID.
"""
import argparse, http.client, json, os, platform, shutil, signal, subprocess, sys, tempfile, time

from benchlib import free_port, proc_status, stop, wait_listening

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "PageProxy")


def memory_kb(pid):
    """(VmRSS, VmHWM) in KiB."""
    fields = proc_status(pid)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def start_proxy(workdir, mock_port):
    port = free_port()
    config = {
        "listen": {"address": "127.0.0.1", "port": port},
        # The page cache is off, so merged answers spool to $TMPDIR (or /tmp).
        "cache": {"directory": os.path.join(workdir, "cache"), "maxBytes": 0},
        "logLevel": "error",
        "routes": [{
            "name": "bench", "upstream": f"http://127.0.0.1:{mock_port}/github/items",
            "pagination": {"scheme": "link-header", "pageSize": 100}, "concurrency": 4, "maxPages": 100000,
        }],
    }
    path = os.path.join(workdir, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    process = subprocess.Popen([BINARY, "serve", "--config", path], stdout=subprocess.DEVNULL)
    wait_listening(port, process)
    return process, port


def stream(port, target):
    """Reads the whole answer, counting items; returns (items, bytes, seconds)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", target)
    response = connection.getresponse()
    if response.status != 200:
        sys.exit(f"{target}: HTTP {response.status}: {response.read(500)!r}")
    ndjson = "ndjson" in response.getheader("Content-Type", "")
    marker = b"\n" if ndjson else b'{"id":'
    items = total = 0
    tail = b""
    while True:
        chunk = response.read(65536)
        if not chunk:
            break
        total += len(chunk)
        joined = tail + chunk
        items += joined.count(marker)
        # Keep a marker's length minus one, so a marker split across reads is counted once.
        tail = joined[-(len(marker) - 1):] if len(marker) > 1 else b""
    connection.close()
    return items, total, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", default="10,100,1000")
    parser.add_argument("--items-per-page", type=int, default=100)
    parser.add_argument("--runs", type=int, default=1, help="runs per cell; the table shows the median rate and the highest peak")
    args = parser.parse_args()
    sizes = [int(p) for p in args.pages.split(",")]
    subprocess.run(["swift", "build", "-c", "release", "--product", "PageProxy"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    workdir = tempfile.mkdtemp(prefix="pageproxy-bench-")
    mock_port = free_port()
    mock = subprocess.Popen([BINARY, "mock", "--port", str(mock_port), "--page-size", str(args.items_per_page),
                             "--latency-ms", "0"], stdout=subprocess.DEVNULL)
    rows = []
    try:
        wait_listening(mock_port, mock)
        for fmt in ["ndjson", "json"]:
            for pages in sizes:
                total = pages * args.items_per_page
                target = f"/bench?mock_total={total}&_format={fmt}"
                rates, peaks, bases, sizes_mb = [], [], [], []
                for _ in range(args.runs):
                    proxy, port = start_proxy(workdir, mock_port)
                    try:
                        base, _ = memory_kb(proxy.pid)
                        items, nbytes, seconds = stream(port, target)
                        _, peak = memory_kb(proxy.pid)
                    finally:
                        stop(proxy)
                    if items != total:
                        sys.exit(f"{target}: {items} items, expected {total}")
                    rates.append(items / seconds)
                    peaks.append(peak)
                    bases.append(base)
                    sizes_mb.append(nbytes / 1e6)
                rates.sort()
                rows.append((fmt, pages, total, sizes_mb[0], max(bases), max(peaks), rates[len(rates) // 2]))
    finally:
        stop(mock)
        shutil.rmtree(workdir, ignore_errors=True)
    label = {"ndjson": "NDJSON", "json": "merged JSON"}
    print(f"| output | pages | items | answer (MB) | RSS at start (MiB) | peak RSS, VmHWM (MiB) | items/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fmt, pages, total, size, base, peak, rate in rows:
        print(f"| {label[fmt]} | {pages:,} | {total:,} | {size:.1f} | {base / 1024:.1f} | {peak / 1024:.1f} | {rate:,.0f} |")
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"\n{os.cpu_count()} CPUs ({model}), {platform.system()} {platform.release()}")


if __name__ == "__main__":
    main()
