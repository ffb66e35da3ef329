#!/usr/bin/env python3
"""Warm aggregate requests per second: PageProxy answering from its disk cache against nginx serving the same
merged bytes as a static file, side by side in one run (issue 5).

    python3 bench/cache_vs_nginx.py [--seconds 10] [--rounds 3] [--connections 32] [--pages 10] [--items 100]

Builds PageProxy in release, starts the mock upstream (`PageProxy mock`) and PageProxy on 127.0.0.1, warms one
aggregate (pages x items), saves its merged body as a static file served by nginx (1 worker, access_log off,
sendfile on), then runs wrk against each in alternating rounds and prints the medians and the ratio. Installs
nginx-light and wrk with apt-get if they are missing. Stops everything it started, by PID.
"""
import argparse, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request

from benchlib import ROOT, free_port, wait_listening, ensure_tools, stop


def wrk(url, connections, seconds):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        sys.exit(f"wrk saw {errors.group(1)} error responses from {url}")
    return rate


def fetch(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read(), dict(response.headers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--items", type=int, default=100)
    args = parser.parse_args()
    ensure_tools("nginx", "wrk")
    subprocess.run(["swift", "build", "-c", "release", "--product", "PageProxy"], cwd=ROOT, check=True)
    binary = os.path.join(ROOT, ".build", "release", "PageProxy")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"

    work = tempfile.mkdtemp(prefix="pageproxy-bench-")
    started = []
    try:
        mock_port, proxy_port, nginx_port = free_port(), free_port(), free_port()
        mock = subprocess.Popen([binary, "mock", "--port", str(mock_port), "--page-size", str(args.items)], stdout=subprocess.DEVNULL)
        started.append(mock)
        wait_listening(mock_port, mock)
        config = os.path.join(work, "config.json")
        with open(config, "w") as f:
            f.write(f"""{{"listen":{{"address":"127.0.0.1","port":{proxy_port}}},"logLevel":"error",
              "cache":{{"directory":"{work}/cache","maxBytes":268435456}},
              "routes":[{{"name":"items","upstream":"http://127.0.0.1:{mock_port}/plain/items",
                         "pagination":{{"scheme":"page-number","pageSize":{args.items}}},"ttlSeconds":3600}}]}}""")
        proxy = subprocess.Popen([binary, "serve", "--config", config], stdout=subprocess.DEVNULL)
        started.append(proxy)
        wait_listening(proxy_port, proxy)

        total = args.pages * args.items
        path = f"/items?mock_total={total}"
        url = f"http://127.0.0.1:{proxy_port}{path}"
        cold, _ = fetch(url)
        warm, headers = fetch(url)
        # Page-number pagination stops at a short page: 10 full pages take an 11th, empty one, also cached.
        if warm != cold or " misses=0 revalidated=0 stale=0 bypassed=0" not in headers.get("PageProxy-Cache", ""):
            sys.exit(f"the aggregate is not warm: PageProxy-Cache: {headers.get('PageProxy-Cache')}")

        root = os.path.join(work, "static")
        os.makedirs(root)
        with open(os.path.join(root, "items.json"), "wb") as f:
            f.write(warm)
        # nginx's worker drops root privileges: let it read the static file (the cache stays 0700).
        for path, mode in ((work, 0o755), (root, 0o755), (os.path.join(root, "items.json"), 0o644)):
            os.chmod(path, mode)
        nginx_conf = os.path.join(work, "nginx.conf")
        with open(nginx_conf, "w") as f:
            f.write(f"""worker_processes 1; daemon off; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  types {{ application/json json; }}
  server {{ listen 127.0.0.1:{nginx_port}; root {root}; }} }}
""")
        server = subprocess.Popen([nginx, "-c", nginx_conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(server)
        wait_listening(nginx_port, server)
        static_url = f"http://127.0.0.1:{nginx_port}/items.json"
        if fetch(static_url)[0] != warm:
            sys.exit("nginx does not serve the same bytes")

        rates = {"PageProxy": [], "nginx": []}
        for _ in range(args.rounds):
            rates["PageProxy"].append(wrk(url, args.connections, args.seconds))
            rates["nginx"].append(wrk(static_url, args.connections, args.seconds))
        proxy_median = statistics.median(rates["PageProxy"])
        nginx_median = statistics.median(rates["nginx"])
        print(f"body: {len(warm)} bytes ({args.pages} pages x {args.items} items); wrk -t2 -c{args.connections} -d{args.seconds}s, "
              f"{args.rounds} rounds alternating")
        print("| server | requests/s per round | median |")
        print("|---|---|---:|")
        for name, values in rates.items():
            print(f"| {name} | {', '.join(f'{v:.0f}' for v in values)} | {statistics.median(values):.0f} |")
        print(f"PageProxy / nginx = {proxy_median / nginx_median:.2f}")
    finally:
        for process in reversed(started):
            stop(process)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
