#!/usr/bin/env python3
"""When does PageProxy ask the upstream for each page? A timeline of one cold known-total aggregation, from the
mock upstream's request log (its `time` is when the answer was written, `duration_ms` how long it took).

    python3 bench/timeline.py [--pages 10] [--latency-ms 50] [--concurrency 8]
"""
import argparse, http.client, json, os, subprocess, sys, time, uuid
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import peers  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    B.sigterm_as_interrupt()
    binary = B.ensure_binary()
    work = B.workdir("pageproxy-timeline-")
    mock_port, pp_port = B.free_port(), B.free_port()
    mock_log = os.path.join(work, "mock.log")
    mock = pp = None
    try:
        with open(mock_log, "wb") as f:
            mock = subprocess.Popen([binary, "mock", "--port", str(mock_port), "--latency-ms", str(args.latency_ms)],
                                    stdout=f, stderr=subprocess.STDOUT)
        B.wait_listening(mock_port, mock, name="mock")
        pp = B.start_pageproxy(binary, peers.pageproxy_config(pp_port, mock_port, args.concurrency,
                                                              os.path.join(work, "cache")), work)
        run = uuid.uuid4().hex
        t0 = time.time()
        conn = http.client.HTTPConnection("127.0.0.1", pp_port, timeout=60)
        conn.request("GET", f"/github?mock_total={args.pages * 20}&bench_run={run}")
        r = conn.getresponse()
        body = r.read()
        t1 = time.time()
        conn.close()
        assert r.status == 200 and len(json.loads(body)) == args.pages * 20
        time.sleep(0.3)
    finally:
        B.stop(pp, "PageProxy")
        B.stop(mock, "mock")
    rows = []
    for line in open(mock_log):
        if run not in line:
            continue
        entry = json.loads(line)
        end = datetime.strptime(entry["time"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
        page = parse_qs(urlsplit(entry["path"]).query).get("page", ["1"])[0]
        rows.append((end - entry["duration_ms"] / 1000, end, page))
    base = min(r[0] for r in rows)
    print(f"{args.pages} pages, {args.latency_ms} ms per page, concurrency {args.concurrency}: client saw "
          f"{(t1 - t0) * 1000:.0f} ms\n")
    print("| page | asked at (ms) | answered at (ms) |\n|---:|---:|---:|")
    for start, end, page in sorted(rows, key=lambda r: (r[0], int(r[2]))):
        print(f"| {page} | {(start - base) * 1000:.0f} | {(end - base) * 1000:.0f} |")


if __name__ == "__main__":
    main()
