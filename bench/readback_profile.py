#!/usr/bin/env python3
"""Where a read-back after a restart spends its time (issue 13), and the floors it is measured against.

    python3 bench/readback_profile.py [--binary PATH] [--before PATH] [--restarts 10] [--perf] [--format merged,ndjson]

The case of `cache_vs_nginx.py --parts readback`: `/items?mock_total=50000`, 500 cached pages of 100 items (~21 KB
each, a 10.6 MB answer), PageProxy (memo off) restarted over the same cache directory, then one request. For each
binary it prints MB/s per restart as read by Python's http.client (the bench's client) and by curl, and the
server's own `Server-Timing` total. Floors: the same client reading the same bytes from nginx (a static file), and
`bench/readback_floor.swift` (500 open/fstat/read/close of the entry files, C-like). With `--perf`, each restarted
process is recorded (`perf record -g -p`) during its one request and the symbols are summed over all restarts.
Everything listens on 127.0.0.1; everything started is stopped by PID.
"""
import argparse, os, re, signal, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, free_port, start_mock, start_nginx, workdir  # noqa: E402
from cache_vs_nginx import PAGE_ITEMS, Proxy, get, stop_all  # noqa: E402

PATH = "/items?mock_total=50000"
NDJSON = {"Accept": "application/x-ndjson"}


def curl(url, headers=None):
    """(bytes, seconds) of one request by curl to /dev/null."""
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{size_download} %{time_total}", url]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    size, seconds = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
    return int(size), float(seconds)


def server_total(fields):
    match = re.search(r"total;dur=([\d.]+)", fields.get("Server-Timing", ""))
    return float(match.group(1)) if match else float("nan")


def perf_start(pid, output):
    proc = subprocess.Popen(["perf", "record", "-F", "20000", "-g", "-p", str(pid), "-o", output],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # perf attaches asynchronously; a bench script may wait (tests may not)
    return proc


def perf_stop(proc):
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


def perf_symbols(paths):
    """{(dso, symbol): samples} summed over perf.data files, and the samples in all."""
    totals = {}
    for path in paths:
        out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-n", "--no-children", "--sort", "dso,symbol",
                              "-g", "none", "--percent-limit", "0"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            hit = re.match(r"\s+[\d.]+%\s+(\d+)\s+(\S+)\s+\[[.k]\]\s+(.*\S)", line)
            if hit:
                key = (hit.group(2), hit.group(3)[:90])
                totals[key] = totals.get(key, 0) + int(hit.group(1))
    return totals, sum(totals.values())


def stat_start(pid):
    proc = subprocess.Popen(["perf", "stat", "-x", ",", "-e", "task-clock,page-faults", "-p", str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)  # as perf_start
    return proc


def stat_counts(proc):
    """{event: count} of a `perf stat -x ,` run, once it is stopped (SIGINT)."""
    proc.send_signal(signal.SIGINT)
    counts = {}
    for line in proc.communicate(timeout=60)[1].splitlines():
        fields = line.split(",")
        if len(fields) > 3 and fields[0].replace(".", "").isdigit():
            counts[fields[2]] = float(fields[0])
    return counts


def stat_stop(proc):
    """(CPU ms, page faults) of the process while perf stat watched it."""
    counts = stat_counts(proc)
    return counts.get("task-clock", float("nan")), counts.get("page-faults", float("nan"))


def measure(label, proxy, restarts, formats, use_perf, work):
    rows = []
    for name in formats:
        headers = NDJSON if name == "NDJSON" else {}
        python_speeds, curl_speeds, server_ms, cpu, recordings = [], [], [], [], []
        for index in range(restarts):
            proxy.restart()
            if use_perf:
                output = os.path.join(work, f"perf-{label}-{name}-{index}.data")
                recorder = perf_start(proxy.proc.pid, output)
                recordings.append(output)
            else:
                recorder = stat_start(proxy.proc.pid)
            status, fields, body, seconds = get(proxy.port, PATH, headers)
            if use_perf:
                perf_stop(recorder)
            else:
                cpu.append(stat_stop(recorder))
            if status != 200:
                sys.exit(f"{label} {name}: {status}")
            python_speeds.append(len(body) / seconds / 1e6)
            server_ms.append(server_total(fields))
            proxy.restart()
            size, seconds = curl(proxy.url(PATH), headers)
            curl_speeds.append(size / seconds / 1e6)
        rows.append((label, name, len(body), python_speeds, curl_speeds, server_ms, cpu or [(float("nan"),) * 2]))
        if recordings:
            totals, samples = perf_symbols(recordings)
            print(f"\nperf, {label} {name}: {samples} samples over {len(recordings)} restarts (one request each)")
            print("| share | dso | symbol |\n|---:|---|---|")
            for (dso, symbol), count in sorted(totals.items(), key=lambda item: -item[1])[:40]:
                print(f"| {100 * count / samples:.1f} % | {dso} | `{symbol}` |")
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "PageProxy"))
    parser.add_argument("--before", help="an older release binary, measured the same way")
    parser.add_argument("--restarts", type=int, default=10)
    parser.add_argument("--perf", action="store_true")
    parser.add_argument("--format", default="merged,NDJSON")
    args = parser.parse_args()
    formats = args.format.split(",")
    work = workdir("pageproxy-readback-")
    started = []
    try:
        mock_port, nginx_port = free_port(), free_port()
        started.append(start_mock(args.binary, mock_port, 0, page_size=PAGE_ITEMS, items=250))
        proxies = {"after": Proxy("after", args.binary, work, mock_port, 256 << 20, memo_bytes=0)}
        if args.before:
            proxies["before"] = Proxy("before", args.before, work, mock_port, 256 << 20, memo_bytes=0)
        started += proxies.values()
        merged = get(proxies["after"].port, PATH)[2]
        ndjson = get(proxies["after"].port, PATH, NDJSON)[2]
        for proxy in proxies.values():
            for headers, expected in (({}, merged), (NDJSON, ndjson)):
                if get(proxy.port, PATH, headers)[2] != expected:
                    sys.exit(f"{proxy.label} does not answer the same bytes")
        started.append(start_nginx(work, nginx_port, {"/all.json": merged, "/all.ndjson": ndjson}))
        print(f"load average at start {os.getloadavg()}")

        print("\nfloor: the same clients reading the same bytes from nginx (static file, sendfile off: nginx's default)")
        print("| file | bytes | Python http.client MB/s (median of 10) | curl MB/s (median of 10) |\n|---|---:|---:|---:|")
        for name in ("all.json", "all.ndjson"):
            python = [len(body) / seconds / 1e6 for _, _, body, seconds in
                      (get(nginx_port, f"/{name}") for _ in range(10))]
            curls = [size / seconds / 1e6 for size, seconds in
                     (curl(f"http://127.0.0.1:{nginx_port}/{name}") for _ in range(10))]
            print(f"| {name} | {len(merged if name.endswith('json') else ndjson)} | {statistics.median(python):.0f} | "
                  f"{statistics.median(curls):.0f} |")

        floor = os.path.join(work, "readback_floor")
        subprocess.run(["swiftc", "-O", "-o", floor, os.path.join(ROOT, "bench", "readback_floor.swift")], check=True)
        cache = os.path.join(proxies["after"].dir, "cache")
        print(f"\nfloor: open/fstat/read/close of every entry file, C-like: "
              f"{subprocess.run([floor, cache, '50'], capture_output=True, text=True, check=True).stdout.strip()}")

        rows = []
        for label, proxy in proxies.items():
            rows += measure(label, proxy, args.restarts, formats, args.perf, work)
        print(f"\nread-back after a restart, {args.restarts} restarts per column; load average {os.getloadavg()}")
        print("| who | output | bytes | Python MB/s per restart | Python median | curl median MB/s | server total ms | "
              "server CPU ms | page faults |\n|---|---|---:|---|---:|---:|---:|---:|---:|")
        for label, name, size, python, curls, server, cpu in rows:
            timed = [s for s in server if s == s] or [float("nan")]
            print(f"| {label} | {name} | {size} | {', '.join(f'{s:.0f}' for s in python)} | "
                  f"{statistics.median(python):.0f} | {statistics.median(curls):.0f} | {statistics.median(timed):.1f} | "
                  f"{statistics.median(c for c, _ in cpu):.1f} | {statistics.median(f for _, f in cpu):.0f} |")
    finally:
        stop_all(started, work)


if __name__ == "__main__":
    main()
