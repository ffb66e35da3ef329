#!/usr/bin/env python3
"""How the first request after a restart shares its CPU between the proxy's threads before the head, and after it
(issue 13, twenty-first pass): whether both cores are busy while the pages are read.

    python3 bench/readback_lanes.py BINARY[,BINARY...] [--restarts N] [--ndjson]

The case of `readback_phases.py` (`/items?mock_total=50000`, 501 cached pages, 10.6 MB merged, memo off). After each
restart, two requests (the first, and the second: its pages in memory) on a socket of this script's own: each thread's run time (`/proc/PID/task/TID/schedstat`, ns, not
ticks) is read before the request, once the head has come (the walk: every page read and verified), and once the last
byte has come (the send). Printed per thread kind (the cooperative pool, the read-ahead's queue, the socket loop,
other): CPU ms to the head and after it, medians over restarts; and the wall time to the head. Wall times are the
load's; the CPU split is not: on two free cores, the head cannot come before the busiest kind's CPU to the head
(the critical path), and the sum over kinds is what both cores share. Nothing is attached to the process. Everything
started is stopped by PID.
"""
import argparse, collections, os, socket, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readback_phases import filled_proxies  # noqa: E402
from readback_profile import NDJSON, PATH  # noqa: E402


def kind(name):
    if "epoll" in name:
        return "loop"
    if "overcommit" in name:
        return "read-ahead"
    if "default-qos" in name or "cooperative" in name:
        return "pool"
    return "other"


def threads(pid):
    """{tid: (kind, ns run)} of every thread of `pid` now."""
    found = {}
    base = f"/proc/{pid}/task"
    for tid in os.listdir(base):
        try:
            with open(f"{base}/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"{base}/{tid}/schedstat") as f:
                ran = int(f.read().split()[0])
        except OSError:
            continue
        found[tid] = (kind(name), ran)
    return found


def spent(before, after):
    """ms of CPU per kind between two `threads` readings (threads born between them count from zero)."""
    out = collections.Counter()
    for tid, (k, ran) in after.items():
        out[k] += (ran - before.get(tid, (k, 0))[1]) / 1e6
    return out


def request(port, pid, headers):
    """(ms to the head, ms in all, CPU per kind to the head, CPU per kind after it) of one GET."""
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
    done = time.perf_counter()
    at_end = threads(pid)
    sock.close()
    return (head_at - started) * 1000, (done - started) * 1000, spent(before, at_head), spent(at_head, at_end), size


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries")
    parser.add_argument("--restarts", type=int, default=6)
    parser.add_argument("--ndjson", action="store_true")
    args = parser.parse_args()
    binaries = [os.path.abspath(b) for b in args.binaries.split(",")]
    headers = NDJSON if args.ndjson else {}
    rows = collections.defaultdict(list)
    print(f"load average at start {os.getloadavg()}", flush=True)
    with filled_proxies(binaries, headers, "pageproxy-readback-lanes-") as proxies:
        for _ in range(args.restarts):
            for index, proxy in enumerate(proxies):
                proxy.restart()
                rows[index].append(request(proxy.port, proxy.proc.pid, headers))
                rows[(index, 2)].append(request(proxy.port, proxy.proc.pid, headers))
    print(f"load average after {os.getloadavg()}")
    kinds = ["pool", "read-ahead", "loop", "other"]
    print("binary, request  head ms  total ms | CPU ms to the head: " + " ".join(f"{k:>10}" for k in kinds) + "    sum | after the head: "
          + " ".join(f"{k:>10}" for k in kinds))
    for index, binary in [(i, b) for i, b in enumerate(binaries)] + [((i, 2), b) for i, b in enumerate(binaries)]:
        got = rows[index]
        label = f"{index}, 1" if isinstance(index, int) else f"{index[0]}, 2"
        med = statistics.median
        head, total = med(r[0] for r in got), med(r[1] for r in got)
        to_head = [med(r[2][k] for r in got) for k in kinds]
        after = [med(r[3][k] for r in got) for k in kinds]
        print(f"{label:>15} {head:8.1f} {total:9.1f} | {'':19}" + " ".join(f"{v:10.2f}" for v in to_head)
              + f" {med(sum(r[2].values()) for r in got):6.2f} | {'':14}" + " ".join(f"{v:10.2f}" for v in after)
              + f"   ({binary}, {got[0][4]} bytes)")


if __name__ == "__main__":
    main()
