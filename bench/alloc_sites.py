#!/usr/bin/env python3
"""Swift objects allocated a request, and where (issue 13).

    python3 bench/alloc_sites.py BINARY [--mode walk|ndjson|memo] [--requests 2000] [--sites] [--depth 2] [--total 50]

Starts the mock upstream and PageProxy (`BINARY`) with the route bench/profile_memo.py uses (`walk`: the memo off,
`ndjson`: the same walk as NDJSON, `memo`: the memo on), warms `/items?mock_total=50` (one cached 10 KB page), then
sends `--requests` requests one after another on one keep-alive connection while `perf stat` counts the uprobe
`probe_libswiftCore:swift_allocObject` in the server: allocations a request, exact and independent of the load.
With `--sites`, `perf record -g` on the same probe instead, and the allocations a request grouped by the first
`--depth` frames outside the Swift runtime and standard library (demangled), most first. Needs perf and the probe
(`perf probe -x libswiftCore.so swift_allocObject`). `--total 50000` walks 501 cached pages of 100 items a request
(the read-back's answer, all in memory once warm): allocations a page are the count over 500. Everything listens on 127.0.0.1 and is stopped by PID.
"""
import argparse, collections, http.client, os, subprocess, sys, time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
from profile_memo import config, get  # noqa: E402

PROBE = "probe_libswiftCore:swift_allocObject"
RUNTIME = ("swift_", "_swift", "$ss", "$sS")  # the runtime and the standard library: not where an allocation is decided


def run(port, path, headers, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(count):
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            sys.exit(f"status {response.status}")
    connection.close()


def sites(script, requests, depth):
    counts = collections.Counter()
    for sample in script.split("\n\n"):
        frames = []
        for line in sample.strip().splitlines()[1:]:
            parts = line.strip().split(None, 1)
            if len(parts) == 2:
                frames.append(parts[1].rsplit(" (", 1)[0].split("+0x")[0])
        kept = []
        for frame in frames:
            if not kept and frame.startswith(RUNTIME):
                continue
            kept.append(frame)
            if len(kept) == depth:
                break
        if frames:
            counts[tuple(kept or frames[:depth])] += 1
    names = sorted({frame for key in counts for frame in key})
    demangled = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True,
                               text=True).stdout.splitlines()
    readable = dict(zip(names, demangled)) if len(demangled) == len(names) else {name: name for name in names}
    lines = [f"{count / requests:6.2f}  " + "  <-  ".join(readable[frame][:100] for frame in key)
             for key, count in counts.most_common() if count / requests >= 0.05]
    return lines, sum(counts.values()) / requests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--mode", choices=["walk", "ndjson", "memo"], default="walk")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--sites", action="store_true", help="where each allocation is made (perf record -g)")
    parser.add_argument("--depth", type=int, default=2, help="frames of each site, outside the runtime")
    parser.add_argument("--total", type=int, default=50, help="mock_total: 50 is one page of 100 items")
    args = parser.parse_args()
    B.sigterm_as_interrupt()
    B.ensure_tools("perf")
    headers = {"Accept": "application/x-ndjson"} if args.mode == "ndjson" else {}
    path = f"/items?mock_total={args.total}"
    work = B.workdir("pageproxy-alloc-sites-")
    started = []
    try:
        mock_port = B.free_port()
        started.append(("mock", B.start_mock(args.binary, mock_port, 0, page_size=100, items=250)))
        port = B.free_port()
        directory = os.path.join(work, "proxy")
        os.makedirs(directory)
        proxy = B.start_pageproxy(args.binary, config(port, mock_port, os.path.join(directory, "cache"), args.mode == "memo"),
                                  directory)
        started.append(("PageProxy", proxy))
        get(port, path, headers)
        run(port, path, headers, 200)
        data = os.path.join(work, "perf.data")
        command = (["perf", "record", "-e", PROBE, "-g", "-o", data] if args.sites else ["perf", "stat", "-e", PROBE, "-x,"])
        perf = subprocess.Popen(command + ["-p", str(proxy.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1)  # perf attached
        run(port, path, headers, args.requests)
        time.sleep(0.3)
        perf.send_signal(2)
        _, err = perf.communicate(timeout=120)
        print(f"{args.mode}: {args.requests} requests; load average {os.getloadavg()}")
        if args.sites:
            script = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True, timeout=600).stdout
            lines, per_request = sites(script, args.requests, args.depth)
            print(f"{per_request:.1f} allocations a request; by where they are made:")
            print("\n".join(lines))
        else:
            count = next(int(line.split(",")[0]) for line in err.splitlines() if PROBE in line)
            print(f"{count / args.requests:.1f} allocations a request ({count} in all)")
    finally:
        for label, proc in reversed(started):
            B.stop(proc, label)


if __name__ == "__main__":
    main()
