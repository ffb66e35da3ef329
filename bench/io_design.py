#!/usr/bin/env python3
"""Measures what the I/O design costs and buys: threads and memory with many idle keep-alive connections,
and /healthz throughput, for a release build of PageProxy.

    python3 bench/io_design.py [--idle 2000] [--seconds 5]

Needs wrk (apt-get install wrk). Everything runs on 127.0.0.1 and stops by PID.
"""
import argparse, json, os, re, signal, socket, subprocess, sys, tempfile, time

from benchlib import free_port, proc_status, wait_listening

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def threads_and_rss(pid):
    fields = proc_status(pid)
    return int(fields["Threads"]), int(fields["VmRSS"].split()[0])


def wrk(url, connections, seconds):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out).group(1)
    return rate, p99


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    subprocess.run(["swift", "build", "-c", "release", "--product", "PageProxy"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "PageProxy")
    port = free_port()
    workdir = tempfile.mkdtemp()
    config = {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "error",
              "server": {"maxConnections": args.idle + 512},
              "routes": [{"name": "unused", "upstream": "http://127.0.0.1:9/", "pagination": {"scheme": "link-header"}}]}
    path = os.path.join(workdir, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    server = subprocess.Popen([binary, "serve", "--config", path], stdout=subprocess.DEVNULL)
    try:
        wait_listening(port, server)
        threads0, rss0 = threads_and_rss(server.pid)
        idle = []
        for _ in range(args.idle):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(4096)
            idle.append(s)
        threads1, rss1 = threads_and_rss(server.pid)
        rate, p99 = wrk(f"http://127.0.0.1:{port}/healthz", 256, args.seconds)
        threads2, rss2 = threads_and_rss(server.pid)
        for s in idle:
            s.close()
        print(f"| state | threads | RSS (MB) |\n|---|---:|---:|")
        print(f"| started | {threads0} | {rss0 / 1024:.1f} |")
        print(f"| {args.idle} idle keep-alive connections | {threads1} | {rss1 / 1024:.1f} |")
        print(f"| same, plus wrk -c256 on /healthz | {threads2} | {rss2 / 1024:.1f} |")
        print(f"\nper idle connection: {(rss1 - rss0) / args.idle:.1f} KB; "
              f"/healthz with {args.idle} idle connections open: {rate:,.0f} req/s, p99 {p99}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)


if __name__ == "__main__":
    main()
