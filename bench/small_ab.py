#!/usr/bin/env python3
"""The 10 KB answers side by side: two PageProxy builds and nginx, in rounds whose order reverses every other round,
with requests/s and the server's CPU time a request (issue 13).

    python3 bench/small_ab.py AFTER_BINARY BEFORE_BINARY [--rounds 6] [--seconds 3] [--total 50] [--urls 1]

Cases, each against nginx serving the same bytes as a static file (one worker, sendfile off: nginx's default):
  walk    merged answer through the disk cache, the memo off (`cache.memoBytes: 0`)
  ndjson  the same walk as NDJSON
  memo    merged answer from the memo (the default)
With --urls N (N > 1) every case rotates over N distinct cached aggregates of the same bytes (`&k=0` … `&k=N-1`, a
query the upstream ignores, so N cache entries and N memo entries), and nginx over N copies of its file: one URL asked
again and again measures repeats, which anything kept per URL (the memo, a prepared answer) serves best.
CPU a request is the utime + stime the server's process (nginx: master and worker) spent during the wrk run, read
from /proc, divided by the requests wrk counted: it moves less with the machine's load than requests/s do, because
wrk and the server share the two cores. Everything listens on 127.0.0.1 and is stopped by PID.
"""
import argparse, os, statistics, sys

sys.dont_write_bytecode = True
import benchlib as B
from profile_memo import config, get

NDJSON = {"Accept": "application/x-ndjson"}
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / TICK


def rotation(work, url, count):
    """A wrk script that asks `count` distinct paths in turn (none for one URL)."""
    if count <= 1:
        return None
    path = url.split("/", 3)[3]
    if path.startswith("m."):
        stem, extension = path.split(".", 1)
        paths = [f"/{stem}{i}.{extension}" for i in range(count)]
    else:
        paths = [f"/{path}&k={i}" for i in range(count)]
    script = os.path.join(work, f"rotate-{abs(hash(url))}.lua")
    with open(script, "w") as handle:
        handle.write("local paths = {" + ",".join(f'"{p}"' for p in paths) + "}\nlocal i = 0\n"
                     "request = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n")
    return script


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("after")
    parser.add_argument("before")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--total", type=int, default=50, help="items of the aggregate (50: one page, ~10 KB)")
    parser.add_argument("--urls", type=int, default=1, help="distinct cached aggregates each case rotates over")
    args = parser.parse_args()
    B.ensure_tools()
    work = B.workdir("small-ab-")
    started = []
    try:
        mock_port = B.free_port()
        started.append(B.start_mock(args.after, mock_port, 0, page_size=100, items=250))
        path = f"/items?mock_total={args.total}"
        paths = [path] if args.urls <= 1 else [f"{path}&k={i}" for i in range(args.urls)]
        cases, bodies = [], {}
        for label, binary in (("after", args.after), ("before", args.before)):
            for memo in (False, True):
                port = B.free_port()
                directory = os.path.join(work, f"{label}-{'memo' if memo else 'walk'}")
                os.makedirs(directory)
                proc = B.start_pageproxy(binary, config(port, mock_port, directory + "/cache", memo), directory)
                started.append(proc)
                for each in paths:
                    get(port, each)
                    if not memo:
                        get(port, each, NDJSON)
                status, cache, body = get(port, paths[0])
                assert status == 200 and " misses=0 " in cache, cache
                bodies["merged"] = body
                url = f"http://127.0.0.1:{port}{path}"
                if memo:
                    cases.append((f"{label} memo", url, [proc.pid], ()))
                else:
                    bodies["ndjson"] = get(port, paths[0], NDJSON)[2]
                    cases.append((f"{label} walk", url, [proc.pid], ()))
                    cases.append((f"{label} ndjson", url, [proc.pid], ("Accept: application/x-ndjson",)))
        nginx_port = B.free_port()
        files = {"/m.json": bodies["merged"], "/m.ndjson": bodies["ndjson"]}
        if args.urls > 1:
            files.update({f"/m{i}.json": bodies["merged"] for i in range(args.urls)})
            files.update({f"/m{i}.ndjson": bodies["ndjson"] for i in range(args.urls)})
        nginx = B.start_nginx(work, nginx_port, files)
        started.append(nginx)
        workers = [int(pid) for pid in open(f"/proc/{nginx.pid}/task/{nginx.pid}/children").read().split()]
        cases += [("nginx merged", f"http://127.0.0.1:{nginx_port}/m.json", [nginx.pid] + workers, ()),
                  ("nginx ndjson", f"http://127.0.0.1:{nginx_port}/m.ndjson", [nginx.pid] + workers, ())]
        results = {name: ([], []) for name, *_ in cases}
        print(f"machine: {os.cpu_count()} cores; load average at start {os.getloadavg()}", flush=True)
        for round_number in range(args.rounds):
            for name, url, pids, headers in (cases if round_number % 2 == 0 else list(reversed(cases))):
                before_cpu = cpu_seconds(pids)
                result = B.wrk(url, 32, args.seconds, threads=1, headers=headers, script=rotation(work, url, args.urls))
                spent = cpu_seconds(pids) - before_cpu
                results[name][0].append(result["requests_per_s"])
                results[name][1].append(spent * 1e6 / max(result["requests"], 1))
            B.log(f"round {round_number + 1} of {args.rounds}, load average {os.getloadavg()[0]:.2f}")
        medians = {name: (statistics.median(rates), statistics.median(costs)) for name, (rates, costs) in results.items()}
        print(f"\nwrk -t1 -c32 -d{args.seconds}s, {args.urls} URL(s) in turn, {args.rounds} rounds (order reversed every other round), medians; "
              f"load average at the end {os.getloadavg()}")
        print("| case | requests/s per round | median requests/s | CPU µs a request (median) |")
        print("|---|---|---:|---:|")
        for name, (rates, _) in results.items():
            print(f"| {name} | {', '.join(f'{r:.0f}' for r in rates)} | {medians[name][0]:,.0f} | {medians[name][1]:.1f} |")
        print("\n| case | after × nginx | before × nginx | after ÷ before, requests/s | CPU a request, after against before |")
        print("|---|---:|---:|---:|---:|")
        for case, peer in (("walk", "nginx merged"), ("ndjson", "nginx ndjson"), ("memo", "nginx merged")):
            after, before, nginx_rate = medians[f"after {case}"], medians[f"before {case}"], medians[peer][0]
            print(f"| {case} | {after[0] / nginx_rate:.2f} | {before[0] / nginx_rate:.2f} | {after[0] / before[0]:.2f} | "
                  f"{100 * (after[1] / before[1] - 1):+.1f} % |")
    finally:
        for proc in reversed(started):
            B.stop(proc)


if __name__ == "__main__":
    main()
