#!/usr/bin/env python3
"""Read-back after a restart, binaries interleaved: the first and the second request after each restart (issue 13).

    python3 bench/readback_ab.py BINARY[,BINARY...] [restarts] [merged,NDJSON] [--no-stat] [--requests 2] [--nginx]

The case of `readback_profile.py`; each binary's proxy (memo off) is restarted in turn before each first request,
so that load changes hit every binary alike. Prints medians of MB/s (Python http.client), server CPU ms and page
faults (`perf stat -p` around the one request) for the first request after a restart and the one after it. With
`--no-stat`, nothing is attached: the request is sent as soon as the restarted proxy listens (as `cache_vs_nginx.py
--parts readback` does), and CPU and faults are not measured. `--requests 3` times the third request after each
restart too (the first one whose entries the cache holds in memory). `--nginx` also times nginx (one worker,
`sendfile on` and off) serving the same bytes as static files, by the same client, in the same rounds: the client's
ceiling, and the ratio the aim is read against (the client's own time is in every MB/s).
"""
import os, shutil, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, start_mock, start_nginx, stop, workdir  # noqa: E402
from cache_vs_nginx import PAGE_ITEMS, Proxy, get  # noqa: E402
from readback_profile import NDJSON, PATH, stat_start, stat_stop  # noqa: E402


def timed(proxy, headers, stat=True):
    recorder = stat_start(proxy.proc.pid) if stat else None
    _, _, body, seconds = get(proxy.port, PATH, headers)
    cpu, faults = stat_stop(recorder) if recorder else (float("nan"), float("nan"))
    return body, (len(body) / seconds / 1e6, cpu, faults)


def main():
    stat = "--no-stat" not in sys.argv
    with_nginx = "--nginx" in sys.argv
    args = [arg for arg in sys.argv if arg not in ("--no-stat", "--nginx")]
    requests = 2
    if "--requests" in args:
        at = args.index("--requests")
        requests = int(args[at + 1])
        del args[at:at + 2]
    ordinals = ["first", "second", "third", "fourth"][:requests]
    binaries = [os.path.abspath(binary) for binary in args[1].split(",")]
    restarts = int(args[2]) if len(args) > 2 else 6
    formats = args[3].split(",") if len(args) > 3 else ["merged", "NDJSON"]
    work = workdir("pageproxy-readback-ab-")
    mock_port = free_port()
    mock = start_mock(binaries[0], mock_port, 0, page_size=PAGE_ITEMS, items=250)
    proxies = []
    nginxes = []
    try:
        for index, binary in enumerate(binaries):
            proxies.append(Proxy(f"binary{index}", binary, work, mock_port, 256 << 20, memo_bytes=0))
        expected = {"merged": get(proxies[0].port, PATH)[2], "NDJSON": get(proxies[0].port, PATH, NDJSON)[2]}
        files = {"/merged.json": expected["merged"], "/answer.ndjson": expected["NDJSON"]}
        if with_nginx:
            os.chmod(work, 0o755)  # nginx's worker runs as another user: it walks into the work directory
            for sendfile in (False, True):
                directory = os.path.join(work, f"nginx-sendfile-{'on' if sendfile else 'off'}")
                os.makedirs(directory)
                port = free_port()
                nginxes.append((f"nginx, sendfile {'on' if sendfile else 'off'} (static file, not restarted)", port,
                                start_nginx(directory, port, files, sendfile=sendfile)))
        results = {}
        for _ in range(restarts):
            for name in formats:
                headers = NDJSON if name == "NDJSON" else {}
                for index, proxy in enumerate(proxies):
                    proxy.restart()
                    for which in ordinals:
                        body, row = timed(proxy, headers, stat)
                        if body != expected[name]:
                            sys.exit(f"{binaries[index]} {name}: not the same bytes")
                        results.setdefault((which, name, index), []).append(row)
                for offset, (label, port, _) in enumerate(nginxes):
                    path = "/merged.json" if name == "merged" else "/answer.ndjson"
                    _, _, body, seconds = get(port, path)
                    if body != expected[name]:
                        sys.exit(f"{label} {name}: not the same bytes ({len(body)} against {len(expected[name])}: {body[:200]!r})")
                    results.setdefault(("first", name, len(binaries) + offset), []).append(
                        (len(body) / seconds / 1e6, float("nan"), float("nan")))
        print(f"load average after {os.getloadavg()}")
        labels = binaries + [label for label, _, _ in nginxes]
        print("| request | output | binary | MB/s (median) | CPU ms (median) | page faults (median) |\n|---|---|---|---:|---:|---:|")
        for (which, name, index), rows in sorted(results.items(), key=lambda item: (ordinals.index(item[0][0]), item[0][1], item[0][2])):
            print(f"| {which} after a restart | {name} | {labels[index]} | {statistics.median(r[0] for r in rows):.0f} | "
                  f"{statistics.median(r[1] for r in rows):.1f} | {statistics.median(r[2] for r in rows):.0f} |")
    finally:
        for proxy in proxies:
            stop(proxy.proc, proxy.label)
        for label, _, proc in nginxes:
            stop(proc, label)
        stop(mock)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
