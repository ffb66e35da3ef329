#!/usr/bin/env python3
"""Where the first and second request after a restart wait (issue 13, twenty-fourth pass): per thread kind, CPU run
time, time runnable but not running (the run queue), time asleep, and the switches, from the head's request to its head.

    python3 bench/readback_waits.py BINARY[,BINARY...] [--restarts N] [--ndjson] [--settle MS]

The case of `readback_phases.py` (`/items?mock_total=50000`, 501 cached pages, 10.6 MB merged, memo off). After each
restart, two requests on a socket of this script's own. Each thread's `/proc/PID/task/TID/schedstat` (run ns, run-queue
wait ns, time slices) and `status` (voluntary and involuntary switches) are read before the request and once the head
has come. Printed per thread kind (the cooperative pool, the read-ahead's queue, the socket loop, other), medians over
restarts: the wall time to the head, and for each kind run ms, queue ms (runnable, another process or thread on the
core: the load's), and voluntary switches (a thread that went to sleep: waits on a lock, a queue, a futex, a socket).
On a loaded machine the queue ms is the load's; the voluntary switches and `wall - run - queue` of the busiest thread
(time it slept while the head was not out yet) are the walk's own waits. Nothing is attached to the process.
Everything started is stopped by PID.
"""
import argparse, collections, os, socket, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readback_lanes import kind  # noqa: E402
from readback_phases import filled_proxies  # noqa: E402
from readback_profile import NDJSON, PATH  # noqa: E402

FIELDS = ("run", "queue", "vol", "invol")


def threads(pid):
    """{tid: (kind, run ns, queue ns, voluntary, involuntary)} of every thread of `pid` now."""
    found = {}
    base = f"/proc/{pid}/task"
    for tid in os.listdir(base):
        try:
            with open(f"{base}/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"{base}/{tid}/schedstat") as f:
                ran, queued, _ = (int(v) for v in f.read().split())
            vol = invol = 0
            with open(f"{base}/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        vol = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        invol = int(line.split()[1])
        except OSError:
            continue
        found[tid] = (kind(name), ran, queued, vol, invol)
    return found


def spent(before, after):
    """{kind: Counter(run ms, queue ms, vol, invol, threads)} between two readings; also per thread, the busiest."""
    out = collections.defaultdict(collections.Counter)
    busiest = (0, None)
    for tid, (k, ran, queued, vol, invol) in after.items():
        b = before.get(tid, (k, 0, 0, 0, 0))
        d = {"run": (ran - b[1]) / 1e6, "queue": (queued - b[2]) / 1e6, "vol": vol - b[3], "invol": invol - b[4]}
        if d["run"] > 0 or d["vol"] > 0:
            out[k]["threads"] += 1
        for name, value in d.items():
            out[k][name] += value
        if d["run"] > busiest[0]:
            busiest = (d["run"], (k, d))
    return out, busiest[1]


def request(port, pid, headers):
    lines = [f"GET {PATH} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"] + [f"{k}: {v}" for k, v in headers.items()]
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    before = threads(pid)
    started = time.perf_counter()
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    first = sock.recv(1 << 20)
    head_at = time.perf_counter()
    at_head = threads(pid)
    size = len(first)
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        size += len(chunk)
    sock.close()
    by_kind, busiest = spent(before, at_head)
    return (head_at - started) * 1000, by_kind, busiest, size


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries")
    parser.add_argument("--restarts", type=int, default=6)
    parser.add_argument("--ndjson", action="store_true")
    parser.add_argument("--settle", type=float, default=0, metavar="MS",
                        help="wait this long after each restart before request 1 (twenty-fifth pass: a start-up warm-up done)")
    args = parser.parse_args()
    binaries = [os.path.abspath(b) for b in args.binaries.split(",")]
    headers = NDJSON if args.ndjson else {}
    rows = collections.defaultdict(list)
    print(f"load average at start {os.getloadavg()}", flush=True)
    with filled_proxies(binaries, headers, "pageproxy-readback-waits-") as proxies:
        for _ in range(args.restarts):
            for index, proxy in enumerate(proxies):
                proxy.restart()
                if args.settle:
                    time.sleep(args.settle / 1000)
                for req in (1, 2):
                    rows[(index, req)].append(request(proxy.port, proxy.proc.pid, headers))
    print(f"load average after {os.getloadavg()}")
    kinds = ["pool", "read-ahead", "loop", "other"]
    med = statistics.median
    print("binary,req  head ms | per kind: run ms / queue ms / voluntary switches / involuntary / threads  | busiest thread: "
          "kind run queue asleep(head-run-queue) vol")
    for (index, req), got in sorted(rows.items()):
        head = med(r[0] for r in got)
        cells = []
        for k in kinds:
            cells.append(f"{k} " + "/".join(f"{med(r[1][k][f] for r in got):.2f}" if f in ('run', 'queue') else
                                            f"{med(r[1][k][f] for r in got):.0f}" for f in FIELDS + ("threads",)))
        bk = collections.Counter(r[2][0] for r in got if r[2]).most_common(1)[0][0]
        brun = med(r[2][1]["run"] for r in got if r[2])
        bq = med(r[2][1]["queue"] for r in got if r[2])
        basleep = med(r[0] - r[2][1]["run"] - r[2][1]["queue"] for r in got if r[2])
        bvol = med(r[2][1]["vol"] for r in got if r[2])
        print(f"b{index},{req} {head:7.2f} | " + " | ".join(cells)
              + f" | {bk} {brun:.2f} {bq:.2f} {basleep:.2f} {bvol:.0f}   ({binaries[index]}, {got[0][3]} bytes first recv)")


if __name__ == "__main__":
    main()
