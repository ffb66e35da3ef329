#!/usr/bin/env python3
"""nginx with proxy_cache in front of two PageProxy replicas (issue 17): what a standard HTTP cache does with
PageProxy's Cache-Control, ETag and Vary.

    python3 scripts/nginx-front.py [--requests 1000] [--ttl 4] [--rate 100] [--seed 17]

Builds PageProxy in release, starts on 127.0.0.1 the mock upstream (`PageProxy mock`, its request log on stdout),
two PageProxy replicas (each with its own cache directory) and nginx (Debian's; installed with apt-get if missing)
with the front-end config of README "Caches and replicas in front": `hash $request_uri consistent` over the
replicas, `proxy_cache` with `proxy_cache_revalidate on`. Then:

1. checks, request by request: a repeat is served by nginx while fresh (HIT, nothing reaches PageProxy); once
   stale it is revalidated with If-None-Match (REVALIDATED: PageProxy answers 304, nginx serves its copy); an
   answer fetched with one Authorization is never served for another one, nor for none (and the reverse);
   an NDJSON request is never answered from the JSON copy;
2. sends `--requests` requests over a mix of routes (anonymous JSON, per-user JSON with Authorization, NDJSON),
   paced at `--rate` per second so that the routes' `--ttl` passes several times, and counts what nginx served
   (its `$upstream_cache_status`), what reached PageProxy and what reached the upstream.

Prints a Markdown report for BENCHMARKS.md. Exits 1 if a check fails. Stops everything it started, by PID.
"""
import argparse, collections, json, os, random, shutil, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from benchlib import ROOT, ensure_tools, free_port, log, nginx_binary, sigterm_as_interrupt, start_pageproxy, stop, wait_listening


def nginx_config(work, port, replicas):
    """The README's front-end config, with this run's ports and paths."""
    servers = "\n".join(f"        server 127.0.0.1:{p};" for p in replicas)
    return f"""worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {work}/tmp-body;
    proxy_temp_path {work}/tmp-proxy;
    fastcgi_temp_path {work}/tmp-fastcgi;
    uwsgi_temp_path {work}/tmp-uwsgi;
    scgi_temp_path {work}/tmp-scgi;
    log_format front '$upstream_cache_status $status $upstream_addr $request_uri';
    access_log {work}/nginx-access.log front;

    proxy_cache_path {work}/nginx-cache levels=1:2 keys_zone=pageproxy:10m max_size=1g inactive=10m use_temp_path=off;

    upstream pageproxy {{
        # Each URL always goes to the same replica, so each replica's disk cache holds its own share.
        hash $request_uri consistent;
{servers}
        keepalive 16;
    }}

    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://pageproxy;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache pageproxy;
            proxy_cache_key $scheme$proxy_host$request_uri;
            # PageProxy's Cache-Control decides: max-age while fresh; private and no-store are never kept;
            # Vary (Accept, the PageProxy-* controls, forwarded credentials) picks the variant.
            proxy_cache_revalidate on;   # stale: ask PageProxy with If-None-Match, keep the copy on a 304
            proxy_cache_lock on;         # one request per URL fills the cache
            add_header X-Cache-Status $upstream_cache_status always;
        }}
    }}
}}
"""


def get(port, target, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{target}", headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, dict(response.headers), response.read()


def metric_sum(port, name, exclude_route=""):
    """The sum of a counter's series, leaving out `route=""` (the proxy's own endpoints, this scrape included)."""
    _, _, body = get(port, "/metrics")
    total = 0
    for line in body.decode().splitlines():
        if line.startswith(name + "{") and f'route="{exclude_route}"' not in line:
            total += float(line.rsplit(" ", 1)[1])
    return int(total)


class Counters:
    """What reached each layer, read from the mock's request log and the replicas' /metrics."""

    def __init__(self, mock_log, replicas):
        self.mock_log, self.replicas = mock_log, replicas

    def upstream(self):
        with open(self.mock_log) as f:
            return sum(1 for line in f if '"msg":"request"' in line)

    def pageproxy(self):
        return sum(metric_sum(p, "pageproxy_requests_total") for p in self.replicas)

    def pageproxy_304(self):
        total = 0
        for p in self.replicas:
            _, _, body = get(p, "/metrics")
            total += sum(int(float(l.rsplit(" ", 1)[1])) for l in body.decode().splitlines()
                         if l.startswith("pageproxy_requests_total{") and 'status="304"' in l)
        return total

    def snapshot(self):
        return self.upstream(), self.pageproxy()


def check(failures, condition, text):
    log(("ok   " if condition else "FAIL ") + text)
    if not condition:
        failures.append(text)


def checks(front, counters, ttl, failures):
    """Request by request, the three behaviours the issue asks to show."""
    target = "/public?mock_total=60&check=1"
    _, first, _ = get(front, target)
    up, pp = counters.snapshot()
    _, repeat, _ = get(front, target)
    check(failures, first["X-Cache-Status"] == "MISS" and repeat["X-Cache-Status"] == "HIT" and counters.snapshot() == (up, pp),
          f"a repeat while fresh is served by nginx: {first['X-Cache-Status']} then {repeat['X-Cache-Status']}, "
          f"nothing reached PageProxy or the upstream (Cache-Control: {first['Cache-Control']})")
    time.sleep(ttl + 1.2)  # a script may wait on wall time; the freshness is the route's TTL
    before_304 = counters.pageproxy_304()
    _, later, _ = get(front, target)
    check(failures, later["X-Cache-Status"] == "REVALIDATED" and counters.pageproxy_304() == before_304 + 1,
          f"once stale it is revalidated with If-None-Match: {later['X-Cache-Status']}, PageProxy answered 304")

    mine = "/mine?mock_total=60&check=2"
    _, anonymous, _ = get(front, mine)
    _, anonymous_again, _ = get(front, mine)
    _, alice, _ = get(front, mine, {"Authorization": "Bearer alice"})
    _, alice_again, _ = get(front, mine, {"Authorization": "Bearer alice"})
    _, bob, _ = get(front, mine, {"Authorization": "Bearer bob"})
    _, anonymous_last, _ = get(front, mine)
    statuses = [h["X-Cache-Status"] for h in (anonymous, anonymous_again, alice, alice_again, bob, anonymous_last)]
    check(failures, statuses[1] == "HIT" and statuses[2:5] == ["MISS"] * 3 and statuses[5] == "HIT",
          f"never shared across Authorization values: anonymous, anonymous, alice, alice, bob, anonymous -> {statuses} "
          f"(with Authorization: Cache-Control: {alice['Cache-Control']}; Vary: {alice['Vary']})")

    _, ndjson, body = get(front, target, {"Accept": "application/x-ndjson"})
    check(failures, ndjson["Content-Type"].startswith("application/x-ndjson") and ndjson["X-Cache-Status"] != "HIT",
          f"an NDJSON request is not answered from the JSON copy: {ndjson['X-Cache-Status']}, {ndjson['Content-Type']}")


def mix(front, counters, requests, rate, seed):
    """`requests` requests over a mix of routes, paced at `rate` per second; counts by nginx cache status."""
    rng = random.Random(seed)
    anonymous = [f"/public?mock_total={n}" for n in (20, 60, 100, 140, 200, 250)] + ["/offset?mock_total=80", "/offset?mock_total=160"]
    users = [f"Bearer user-{k}" for k in range(1, 5)]
    kinds = collections.Counter()
    statuses = collections.Counter()
    up0, pp0 = counters.snapshot()
    start = time.monotonic()
    for i in range(requests):
        pause = start + i / rate - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        roll = rng.random()
        if roll < 0.70:
            kind, target, headers = "anonymous JSON", rng.choice(anonymous), {}
        elif roll < 0.90:
            kind, target, headers = "per-user JSON (Authorization)", f"/mine?mock_total={rng.choice((40, 120))}", {"Authorization": rng.choice(users)}
        else:
            kind, target, headers = "NDJSON", rng.choice(anonymous), {"Accept": "application/x-ndjson"}
        status, response, _ = get(front, target, headers)
        if status != 200:
            raise RuntimeError(f"{target}: status {status}")
        kinds[kind] += 1
        statuses[(kind, response["X-Cache-Status"])] += 1
    elapsed = time.monotonic() - start
    up1, pp1 = counters.snapshot()
    return kinds, statuses, up1 - up0, pp1 - pp0, elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--ttl", type=int, default=4, help="the routes' ttlSeconds")
    parser.add_argument("--rate", type=float, default=100.0, help="requests per second in the mix")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    sigterm_as_interrupt()
    ensure_tools("nginx")
    subprocess.run(["swift", "build", "-c", "release", "--product", "PageProxy"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "PageProxy")

    work = tempfile.mkdtemp(prefix="pageproxy-nginx-front-")
    os.chmod(work, 0o755)  # nginx's worker (not root) writes its cache and temporaries here
    started = []
    failures = []
    try:
        mock_port, front = free_port(), free_port()
        replicas = [free_port(), free_port()]
        mock_log = os.path.join(work, "mock.log")
        with open(mock_log, "wb") as out:
            mock = subprocess.Popen([binary, "mock", "--port", str(mock_port), "--page-size", "20"], stdout=out, stderr=subprocess.STDOUT)
        started.append(("mock", mock))
        wait_listening(mock_port, mock, name="mock")
        for index, port in enumerate(replicas):
            replica_dir = os.path.join(work, f"replica-{index + 1}")
            os.makedirs(replica_dir)
            config = {
                "listen": {"address": "127.0.0.1", "port": port}, "logLevel": "warning",
                "cache": {"directory": os.path.join(replica_dir, "cache"), "maxBytes": 64 << 20},
                "routes": [
                    {"name": "public", "upstream": f"http://127.0.0.1:{mock_port}/github/items",
                     "pagination": {"scheme": "link-header", "pageSize": 20}, "ttlSeconds": args.ttl},
                    {"name": "offset", "upstream": f"http://127.0.0.1:{mock_port}/offset/items", "items": "items",
                     "pagination": {"scheme": "offset", "limit": 20}, "ttlSeconds": args.ttl},
                    {"name": "mine", "upstream": f"http://127.0.0.1:{mock_port}/github/items",
                     "pagination": {"scheme": "link-header", "pageSize": 20}, "ttlSeconds": args.ttl,
                     "forwardHeaders": ["Authorization"]},
                ],
            }
            started.append((f"replica {index + 1}", start_pageproxy(binary, config, replica_dir)))
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(nginx_config(work, front, replicas))
        nginx = subprocess.Popen([nginx_binary(), "-c", conf, "-e", os.path.join(work, "nginx-error.log")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(("nginx", nginx))
        wait_listening(front, nginx, name="nginx")
        counters = Counters(mock_log, replicas)

        checks(front, counters, args.ttl, failures)
        kinds, statuses, upstream, pageproxy, elapsed = mix(front, counters, args.requests, args.rate, args.seed)

        replica_of = collections.defaultdict(set)
        with open(os.path.join(work, "nginx-access.log")) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4 and parts[2] != "-":
                    replica_of[parts[3]].add(parts[2])
        one_replica = all(len(v) == 1 for v in replica_of.values())
        check(failures, one_replica, f"hash $request_uri consistent: each of {len(replica_of)} URLs went to one replica")

        served_by_nginx = sum(n for (kind, status), n in statuses.items() if status in ("HIT", "REVALIDATED"))
        hits = sum(n for (kind, status), n in statuses.items() if status == "HIT")
        shared = sum(n for (kind, status), n in statuses.items() if kind.startswith("per-user") and status in ("HIT", "REVALIDATED"))
        check(failures, shared == 0, f"no per-user request answered from nginx's cache in the mix ({shared})")
        total = sum(kinds.values())
        print(f"\n### nginx in front of two replicas: {total} requests in {elapsed:.1f} s, routes' TTL {args.ttl} s\n")
        print("| requests | count | HIT | REVALIDATED | EXPIRED | MISS | other |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for kind in sorted(kinds):
            row = [statuses[(kind, s)] for s in ("HIT", "REVALIDATED", "EXPIRED", "MISS")]
            other = kinds[kind] - sum(row)
            print(f"| {kind} | {kinds[kind]} | " + " | ".join(str(n) for n in row) + f" | {other} |")
        print(f"\n- hit ratio (served from nginx's copy, HIT): {hits / total:.1%}; with revalidated copies (HIT + REVALIDATED): "
              f"{served_by_nginx / total:.1%}")
        print(f"- requests reaching PageProxy (both replicas): {pageproxy} of {total}")
        print(f"- requests reaching the upstream (pages, conditional ones included): {upstream}")
        per_replica = collections.Counter(next(iter(v)) for v in replica_of.values())
        print("- URLs per replica: " + ", ".join(f"{address} {count}" for address, count in sorted(per_replica.items())))
        print(f"- checks: {'all passed' if not failures else 'FAILED: ' + '; '.join(failures)}")
    except Exception:
        error_log = os.path.join(work, "nginx-error.log")
        if os.path.exists(error_log):
            log("nginx-error.log:\n" + open(error_log).read()[-2000:])
        raise
    finally:
        for name, proc in reversed(started):
            stop(proc, name)
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
