#!/usr/bin/env python3
"""Wall time to the head and in all of the first and second request after a restart, by curl (issue 13, read-back).

    python3 bench/readback_phases.py BINARY[,BINARY...] [--restarts N] [--ndjson] [--send-from-files I,...] [--memo I,...]

The case of `readback_profile.py` (`/items?mock_total=50000`, 501 cached pages of ~21 KB, a 10.6 MB merged answer,
memo off). Each binary's proxy has its own cache directory, filled once; then, for each of N rounds, each proxy in
turn is restarted over it (the OS page cache warm) and asked twice by `curl`: its `time_starttransfer` (the head
left: the walk's time) and `time_total` (the send on top) are printed side by side. Wall time to the head is the
number the first request's work is judged by (a change that cuts CPU but not this is no gain). Nothing is attached to
the process. Everything started is stopped by PID.

`--memo` (issue 13, sixteenth pass): the proxies of those indexes run with the memo on (`memoBytes` 64 MiB, room for
the 10.6 MB answer), and are given two seconds after the fill to write the memoized answer's entry (a build that keeps
it in the cache directory answers the first request after each restart from it; an older one walks).

`--warm-off` (twenty-fifth pass): the proxies of those indexes run with `cache.warmBytes: 0` (a build that has the key;
an older one rejects it); the others keep their binary's default (a build with the start-up warm-up reads the newest
pages into memory once it listens). `--at-listen`: each restart tries the port every millisecond, not every 50 ms, so
that request 1 comes as soon as the proxy listens (racing its warm-up); `--settle MS`: a wait after each restart
before request 1 (the warm-up done).

`--bury N` (readback25b): after the walked list is cached, N other lists of the same size (the same path with
`&bury=K`, another key each) are cached after it, so that with N >= 7 (74 MB) the walked list is not among the newest
64 MiB the warm-up reads: request 1 then reads its files as it did before the warm-up. `--warm-log`: the proxies log
at `info`, and each restart's `cache warmed` line (the warm-up's own time, `duration_ms`, and what it kept) is printed.
"""
import argparse, contextlib, json, os, shutil, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, start_mock, stop, workdir  # noqa: E402
from cache_vs_nginx import PAGE_ITEMS, Proxy, get  # noqa: E402
from readback_profile import NDJSON, PATH  # noqa: E402


def curl(url, headers):
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{time_starttransfer} %{time_total} %{size_download}"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    head, total, size = out.split()
    return float(head) * 1000, float(total) * 1000, int(size)


@contextlib.contextmanager
def filled_proxies(binaries, headers, prefix, send_from_files=(), memo=(), warm_off=(), bury=0, warm_log=False):
    """One proxy per binary (memo off unless its index is in `memo`), each over its own cache directory filled once by one request; the mock is
    started with the first binary. Everything started is stopped by PID at the end, and the directories removed."""
    work = workdir(prefix)
    mock_port = free_port()
    mock = start_mock(binaries[0], mock_port, 0, page_size=PAGE_ITEMS, items=250)
    proxies = []
    try:
        for index, binary in enumerate(binaries):
            proxies.append(Proxy(f"binary{index}", binary, work, mock_port, 256 << 20,
                                 memo_bytes=64 << 20 if index in memo else 0, send_from_files=index in send_from_files))
            if index in warm_off or warm_log:
                if index in warm_off:
                    proxies[-1].config["cache"]["warmBytes"] = 0
                if warm_log:
                    proxies[-1].config["logLevel"] = "info"
                proxies[-1].restart()
            get(proxies[-1].port, PATH, headers)
            for other in range(bury):
                status = get(proxies[-1].port, f"{PATH}&bury={other}", headers)[0]
                assert status == 200, status
            if index in memo:
                time.sleep(2)  # the answer's entry is written in the background
        yield proxies
    finally:
        for proxy in proxies:
            stop(proxy.proc, proxy.label)
        stop(mock)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", help="comma-separated release binaries")
    parser.add_argument("--restarts", type=int, default=4, help="rounds of restarts (default 4)")
    parser.add_argument("--ndjson", action="store_true", help="ask for NDJSON instead of the merged answer")
    parser.add_argument("--send-from-files", default="", metavar="INDEXES",
                        help="comma-separated indexes (from 0) of the binaries whose proxy runs with cache.sendFromFiles on "
                             "(the same binary may be listed twice: with and without); the others run with it off")
    parser.add_argument("--memo", default="", metavar="INDEXES",
                        help="comma-separated indexes of the binaries whose proxy runs with the memo on (64 MiB); the others "
                             "run with it off, as before")
    parser.add_argument("--warm-off", default="", metavar="INDEXES",
                        help="comma-separated indexes of the binaries whose proxy runs with cache.warmBytes 0 (builds that have it)")
    parser.add_argument("--at-listen", action="store_true", help="try the port every 1 ms after a restart (request 1 as soon as it listens)")
    parser.add_argument("--settle", type=float, default=0, metavar="MS", help="wait this long after each restart before request 1")
    parser.add_argument("--bury", type=int, default=0, metavar="N",
                        help="cache N other lists of the same size after the walked one (N >= 7: it is not among the newest 64 MiB)")
    parser.add_argument("--warm-log", action="store_true", help="log at info and print each restart's `cache warmed` line")
    args = parser.parse_args()
    binaries = [os.path.abspath(binary) for binary in args.binaries.split(",")]
    headers = NDJSON if args.ndjson else {}
    results = {}
    send_from_files = {int(index) for index in args.send_from_files.split(",") if index}
    memo = {int(index) for index in args.memo.split(",") if index}
    warm_off = {int(index) for index in args.warm_off.split(",") if index}
    with filled_proxies(binaries, headers, "pageproxy-readback-phases-", send_from_files, memo, warm_off, args.bury,
                        args.warm_log) as proxies:
        for _ in range(args.restarts):
            cells = []
            for index, proxy in enumerate(proxies):
                logged = log_size(proxy)
                proxy.restart(0.001 if args.at_listen else 0.05)
                if args.settle:
                    time.sleep(args.settle / 1000)
                for request in (1, 2):
                    head, total, size = curl(proxy.url(PATH), headers)
                    results.setdefault((index, request), []).append((head, total, size / total / 1e3))
                    cells.append(f"b{index} r{request} head {head:5.1f} total {total:5.1f} ms {size / total / 1e3:5.0f} MB/s")
                if args.warm_log:
                    warmed = warm_line(proxy, logged)
                    cells.append(f"b{index} warm {warmed}")
                    if warmed and "duration_ms" in warmed:
                        results.setdefault((index, "warm"), []).append(float(warmed["duration_ms"]))
            print(" | ".join(cells), flush=True)
        print(f"load average after {os.getloadavg()}")
        for index, binary in enumerate(binaries):
            for request in (1, 2):
                rows = results[(index, request)]
                print(f"b{index} {binary} request {request}: median head {statistics.median(r[0] for r in rows):.1f} ms, "
                      f"total {statistics.median(r[1] for r in rows):.1f} ms, {statistics.median(r[2] for r in rows):.0f} MB/s")
            if results.get((index, "warm")):
                print(f"b{index} warm-up duration_ms median {statistics.median(results[(index, 'warm')]):.1f} "
                      f"(all: {results[(index, 'warm')]})")


def log_size(proxy):
    """How many bytes the proxy's log holds now (its next start appends)."""
    try:
        return os.path.getsize(os.path.join(proxy.dir, "log"))
    except OSError:
        return 0


def warm_line(proxy, offset, bound=5.0):
    """The fields of the `cache warmed` line the proxy logged past `offset`, waiting for it at most `bound` seconds;
    None when there is none (a binary without the warm-up, or one run with it off)."""
    deadline = time.monotonic() + bound
    while True:
        with open(os.path.join(proxy.dir, "log"), "rb") as f:
            f.seek(offset)
            for line in f.read().decode(errors="replace").splitlines():
                if "cache warmed" not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    return {"line": line}
                return {k: record[k] for k in ("entries", "bytes", "skipped", "answers", "duration_ms") if k in record}
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


if __name__ == "__main__":
    main()
