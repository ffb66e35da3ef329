#!/usr/bin/env python3
"""PageProxy side by side with the tools users would pick instead (issue 9).

    python3 bench/peers.py            # full run: 5 repeats, wrk 10 s per point (about 10 minutes)
    python3 bench/peers.py --quick    # 2 repeats, wrk 3 s per point

One command: installs what it needs (bench/.venv from bench/requirements.txt; nginx-light and wrk from Debian
when missing), builds PageProxy in release mode if .build/release/PageProxy is missing, starts the mock upstream
with a per-page latency, PageProxy and nginx on 127.0.0.1, and stops each by its PID at the end (also on error or
Ctrl-C). Writes bench/results/peers-<time>.json (and peers-latest.json) and prints markdown tables.

Scenarios:
- cold aggregation of 10, 50, 200 pages (20 items each) at --latency-ms per page, for the GitHub-style Link
  header scheme (rel="last" tells the total) and the Slack-style cursor scheme, with contenders PageProxy (one GET
  of the merged array with http.client), a sequential `requests` loop, dlt's RESTClient with its paginator, an
  asyncio + aiohttp aggregator at the same concurrency as PageProxy, and the latency limit. Every URL carries a
  unique `bench_run` parameter (passed through to the mock, which ignores it), so no cache can answer a cold run.
  Repeats are interleaved (contender order rotates); medians are reported.
- warm aggregation: wrk at 32 connections repeating one aggregate against PageProxy, and against nginx (one
  worker, access_log off) serving the same merged bytes as a static file. Reports the `PageProxy-Cache` header of
  sample responses (absent until the page cache exists).
- /healthz at 1, 32 and 256 connections with wrk, PageProxy against nginx (one worker, `return 200`).
- resident memory of PageProxy: idle (after start, no request) and loaded (VmHWM after every run).
"""
import argparse, http.client, itertools, json, math, os, select, shutil, subprocess, sys, time, uuid

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

CONTENDERS = ["pageproxy", "aiohttp", "requests", "dlt"]
SCHEMES = {"link": "GitHub Link header (rel=\"last\")", "cursor": "Slack cursor"}
ROUTE = {"link": "github", "cursor": "slack"}


def pageproxy_config(port, mock_port, concurrency, cache_dir, lookahead=0):
    return {
        "listen": {"address": "127.0.0.1", "port": port},
        "cache": {"directory": cache_dir},
        "server": {"maxConnections": 2048},
        # Request lines are not logged (like nginx with access_log off); warnings and errors are.
        "logLevel": "warning",
        "routes": [
            {"name": "github", "upstream": f"http://127.0.0.1:{mock_port}/github/items",
             "pagination": {"scheme": "link-header", "pageSize": 20, "lookahead": lookahead}, "concurrency": concurrency,
             "maxPages": 100000},
            {"name": "slack", "upstream": f"http://127.0.0.1:{mock_port}/slack/items",
             "pagination": {"scheme": "cursor", "cursorPath": "response_metadata.next_cursor",
                            "cursorParameter": "cursor", "sizeParameter": "limit", "pageSize": 20},
             "items": "members", "concurrency": concurrency, "maxPages": 100000},
        ],
    }


class PeerWorker:
    """bench/peer_clients.py in the venv, kept running; one JSON line per trial each way."""

    def __init__(self, python):
        self.proc = subprocess.Popen([python, os.path.join(B.BENCH, "peer_clients.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def run(self, request, timeout=180):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise RuntimeError(f"peer {request['contender']} gave no answer within {timeout}s")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("peer worker exited")
        return json.loads(line)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                B.stop(self.proc, "peer worker")


def pageproxy_fetch(port, scheme, total, run_id, timeout=120):
    """What `curl` does: one GET of the merged array; then parse it, as the peers do."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", f"/{ROUTE[scheme]}?mock_total={total}&bench_run={run_id}")
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError(f"PageProxy answered {r.status}: {body[:300]!r}")
        items = json.loads(body)
        seconds = time.perf_counter() - start
        return {"ok": True, "seconds": seconds, "items": len(items), "pages": int(r.getheader("PageProxy-Pages", "0")),
                "header_items": int(r.getheader("PageProxy-Items", "-1")),
                "first_id": items[0]["id"] if items else None, "last_id": items[-1]["id"] if items else None,
                "bytes": len(body)}
    finally:
        conn.close()


def latency_limit(scheme, pages, latency_ms, concurrency):
    """The brief's limit: ceil(pages / concurrency) x latency for a known total; pages x latency for a cursor."""
    if scheme == "link":
        return math.ceil(pages / concurrency) * latency_ms / 1000
    return pages * latency_ms / 1000


def first_page_bound(scheme, pages, latency_ms, concurrency):
    """What any client that learns the total from page 1 needs: page 1, then the rest `concurrency` at a time."""
    if scheme == "link":
        return (1 + math.ceil((pages - 1) / concurrency)) * latency_ms / 1000
    return pages * latency_ms / 1000


def cold_runs(args, pp_port, mock_port, worker):
    upstream = f"http://127.0.0.1:{mock_port}"
    trials = []
    # Warm-up: imports, first connections, lazy initialisation; not recorded.
    for scheme in SCHEMES:
        for contender in CONTENDERS:
            one_trial(contender, scheme, 2, args, pp_port, upstream, worker)
    rotation = itertools.cycle(range(len(CONTENDERS)))
    for scheme in SCHEMES:
        for pages in args.pages:
            for rep in range(args.repeats):
                shift = next(rotation)
                order = CONTENDERS[shift:] + CONTENDERS[:shift]
                for contender in order:
                    t = one_trial(contender, scheme, pages, args, pp_port, upstream, worker)
                    t.update(scheme=scheme, pages=pages, rep=rep, contender=contender)
                    trials.append(t)
                    B.log(f"  {scheme:6} {pages:4} pages  rep {rep}  {contender:9} {t['seconds'] * 1000:8.1f} ms")
    return trials


def one_trial(contender, scheme, pages, args, pp_port, upstream, worker):
    total = pages * args.page_size
    run_id = uuid.uuid4().hex
    if contender == "pageproxy":
        t = pageproxy_fetch(pp_port, scheme, total, run_id)
        if t["header_items"] != total:
            raise RuntimeError(f"PageProxy-Items {t['header_items']} != {total}")
    else:
        t = worker.run({"contender": contender, "scheme": scheme, "upstream": upstream, "total": total,
                        "page_size": args.page_size, "run": run_id, "concurrency": args.concurrency})
        if not t["ok"]:
            raise RuntimeError(f"{contender} failed: {t['error']}\n{t.get('trace', '')}")
    if (t["items"], t["first_id"], t["last_id"]) != (total, 1, total):
        raise RuntimeError(f"{contender} {scheme} {pages} pages: got {t['items']} items "
                           f"(ids {t['first_id']}..{t['last_id']}), expected {total}")
    if t["pages"] != pages:
        raise RuntimeError(f"{contender} {scheme}: {t['pages']} pages, expected {pages}")
    return t


def sample_headers(port, target, n=3):
    """Status, PageProxy-Cache and counts of a few responses (the cache header appears once the cache exists)."""
    out = []
    for _ in range(n):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("GET", target)
            r = conn.getresponse()
            body = r.read()
            out.append({"status": r.status, "cache": r.getheader("PageProxy-Cache"), "bytes": len(body),
                        "pages": r.getheader("PageProxy-Pages"), "items": r.getheader("PageProxy-Items")})
        finally:
            conn.close()
    return out


def metrics_cache_lines(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    return [line for line in text.splitlines() if line.startswith("pageproxy_cache_pages_total")]


def warm_runs(args, pp_port, nginx_port, merged):
    target = f"/github?mock_total={args.warm_pages * args.page_size}"
    before = sample_headers(pp_port, target)
    results = {"target": target, "pages": args.warm_pages, "bytes": len(merged), "samples_before": before,
               "metrics_before": metrics_cache_lines(pp_port)}
    results["nginx"] = B.wrk(f"http://127.0.0.1:{nginx_port}/merged.json", 32, args.wrk_seconds)
    results["pageproxy"] = B.wrk(f"http://127.0.0.1:{pp_port}{target}", 32, args.wrk_seconds)
    results["samples_after"] = sample_headers(pp_port, target)
    results["metrics_after"] = metrics_cache_lines(pp_port)
    for name in ("nginx", "pageproxy"):
        r = results[name]
        B.log(f"  warm {name:9} {r['requests_per_s']:10.0f} req/s  p99 {r['p99_ms']} ms  "
              f"non-2xx {r['non_2xx_3xx']} socket errors {r['socket_errors']}")
    return results


def healthz_runs(args, pp_port, nginx_port):
    out = []
    for c in (1, 32, 256):
        for name, port in (("nginx", nginx_port), ("pageproxy", pp_port)):
            r = B.wrk(f"http://127.0.0.1:{port}/healthz", c, args.wrk_seconds)
            r["server"] = name
            out.append(r)
            B.log(f"  healthz c={c:3} {name:9} {r['requests_per_s']:10.0f} req/s  p99 {r['p99_ms']} ms  "
                  f"non-2xx {r['non_2xx_3xx']} socket errors {r['socket_errors']}")
    return out


# --- report ---------------------------------------------------------------------------------------------------
def fmt_ratio(x):
    return f"{x:.2f}×"


def report(res):
    lines = []
    cfg = res["config"]
    lines.append(f"Cold aggregation, median of {cfg['repeats']} interleaved runs, {cfg['latency_ms']} ms per page, "
                 f"{cfg['page_size']} items per page, concurrency {cfg['concurrency']} (times in ms; lower is better)\n")
    lines.append("| scheme | pages | latency limit | PageProxy | aiohttp | requests | dlt | PageProxy / limit "
                 "| dlt / PageProxy | aiohttp / PageProxy | requests / PageProxy |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in res["cold_summary"]:
        m = row["median_ms"]
        lines.append(f"| {row['scheme']} | {row['pages']} | {row['limit_ms']:.0f} | {m['pageproxy']:.0f} | "
                     f"{m['aiohttp']:.0f} | {m['requests']:.0f} | {m['dlt']:.0f} | "
                     f"{fmt_ratio(row['pageproxy_over_limit'])} | {fmt_ratio(row['dlt_over_pageproxy'])} | "
                     f"{fmt_ratio(row['aiohttp_over_pageproxy'])} | {fmt_ratio(row['requests_over_pageproxy'])} |")
    lines.append("")
    lines.append("Known-total (Link) runs against the bound for a client that must read page 1 before it knows the "
                 "total, (1 + ceil((pages − 1) / 8)) × latency:\n")
    lines.append("| pages | page-1-first bound | PageProxy | PageProxy / bound | aiohttp | aiohttp / bound |")
    lines.append("|---:|---:|---:|---:|---:|---:|")
    for row in res["cold_summary"]:
        if row["scheme"] != "link":
            continue
        m = row["median_ms"]
        lines.append(f"| {row['pages']} | {row['bound_ms']:.0f} | {m['pageproxy']:.0f} | "
                     f"{fmt_ratio(m['pageproxy'] / row['bound_ms'])} | {m['aiohttp']:.0f} | "
                     f"{fmt_ratio(m['aiohttp'] / row['bound_ms'])} |")
    w = res.get("warm")
    if w:
        lines.append("")
        lines.append(f"Warm aggregation: wrk, 32 connections, {cfg['wrk_seconds']} s, the same {w['pages']}-page "
                     f"aggregate ({w['bytes']:,} bytes) repeated\n")
        lines.append("| server | requests/s | p50 ms | p99 ms | non-2xx | socket errors | PageProxy-Cache (samples) |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        cache = sorted({str(s["cache"]) for s in w["samples_before"] + w["samples_after"]})
        for name in ("nginx", "pageproxy"):
            r = w[name]
            lines.append(f"| {'nginx static file' if name == 'nginx' else 'PageProxy'} | {r['requests_per_s']:,.0f} | "
                         f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['non_2xx_3xx']} | "
                         f"{sum(r['socket_errors'].values())} | {', '.join(cache) if name == 'pageproxy' else ''} |")
        lines.append(f"\nPageProxy / nginx: {fmt_ratio(w['pageproxy']['requests_per_s'] / w['nginx']['requests_per_s'])}"
                     f" (cache header values seen: {', '.join(cache)}; 'None' means no `PageProxy-Cache` header)")
    h = res.get("healthz")
    if h:
        lines.append("")
        lines.append(f"`/healthz`: wrk, {cfg['wrk_seconds']} s per point, nginx with one worker\n")
        lines.append("| connections | nginx req/s | nginx p99 ms | PageProxy req/s | PageProxy p99 ms | PageProxy / nginx "
                     "| errors (nginx, PageProxy) |")
        lines.append("|---:|---:|---:|---:|---:|---:|---|")
        for c in (1, 32, 256):
            n = next(r for r in h if r["server"] == "nginx" and r["connections"] == c)
            p = next(r for r in h if r["server"] == "pageproxy" and r["connections"] == c)
            err = lambda r: r["non_2xx_3xx"] + sum(r["socket_errors"].values())  # noqa: E731
            lines.append(f"| {c} | {n['requests_per_s']:,.0f} | {n['p99_ms']:.2f} | {p['requests_per_s']:,.0f} | "
                         f"{p['p99_ms']:.2f} | {fmt_ratio(p['requests_per_s'] / n['requests_per_s'])} | "
                         f"{err(n)}, {err(p)} |")
    mem = res["memory"]
    lines.append("")
    lines.append("| PageProxy resident memory | MB |")
    lines.append("|---|---:|")
    lines.append(f"| idle (VmRSS after start, no request) | {mem['idle']['VmRSS_kB'] / 1024:.1f} |")
    if "after" in mem:
        lines.append(f"| loaded (VmHWM after every run) | {mem['after']['VmHWM_kB'] / 1024:.1f} |")
        lines.append(f"| after every run (VmRSS) | {mem['after']['VmRSS_kB'] / 1024:.1f} |")
    for failure in res.get("failures", []):
        lines.append(f"\n**Failure** in {failure['part']}: {failure['error']}" +
                     (f" (output: `{failure['log']}`)" if "log" in failure else ""))
    lines.append("")
    lines.append("Aims (issue 9):\n")
    for aim in res["aims"]:
        lines.append(f"- {aim['aim']}: {aim['measured']} — **{'met' if aim['met'] else 'missed'}**")
    return "\n".join(lines)


def summarise(res, args):
    rows = []
    for scheme in SCHEMES:
        for pages in args.pages:
            med = {c: B.median([t["seconds"] for t in res["cold"] if t["scheme"] == scheme and t["pages"] == pages
                                and t["contender"] == c]) * 1000 for c in CONTENDERS}
            limit = latency_limit(scheme, pages, args.latency_ms, args.concurrency) * 1000
            bound = first_page_bound(scheme, pages, args.latency_ms, args.concurrency) * 1000
            rows.append({"scheme": scheme, "pages": pages, "median_ms": med, "limit_ms": limit, "bound_ms": bound,
                         "pageproxy_over_limit": med["pageproxy"] / limit,
                         "dlt_over_pageproxy": med["dlt"] / med["pageproxy"],
                         "aiohttp_over_pageproxy": med["aiohttp"] / med["pageproxy"],
                         "requests_over_pageproxy": med["requests"] / med["pageproxy"]})
    res["cold_summary"] = rows
    aims = []
    link = [r for r in rows if r["scheme"] == "link"]
    worst = max(link, key=lambda r: r["pageproxy_over_limit"])
    aims.append({"aim": "cold known-total aggregation within 1.2× the latency limit (ceil(pages/8) × latency)",
                 "measured": ", ".join(f"{r['pages']} pages {r['pageproxy_over_limit']:.2f}×" for r in link),
                 "met": worst["pageproxy_over_limit"] <= 1.2})
    aims.append({"aim": "cold known-total aggregation at least 5× faster than dlt",
                 "measured": ", ".join(f"{r['pages']} pages {r['dlt_over_pageproxy']:.1f}×" for r in link),
                 "met": min(r["dlt_over_pageproxy"] for r in link) >= 5})
    aims.append({"aim": "cold known-total aggregation no slower than the aiohttp aggregator",
                 "measured": ", ".join(f"{r['pages']} pages aiohttp/PageProxy {r['aiohttp_over_pageproxy']:.2f}×"
                                       for r in link),
                 "met": min(r["aiohttp_over_pageproxy"] for r in link) >= 1.0})
    if res.get("warm"):
        ratio = res["warm"]["pageproxy"]["requests_per_s"] / res["warm"]["nginx"]["requests_per_s"]
        aims.append({"aim": "warm aggregation at least half of nginx's rate", "measured": f"{ratio:.3f}× nginx",
                     "met": ratio >= 0.5})
    if res.get("healthz"):
        parts, ok = [], True
        for c in (1, 32, 256):
            n = next(r for r in res["healthz"] if r["server"] == "nginx" and r["connections"] == c)
            p = next(r for r in res["healthz"] if r["server"] == "pageproxy" and r["connections"] == c)
            ratio = p["requests_per_s"] / n["requests_per_s"]
            ok = ok and ratio >= 0.5
            parts.append(f"c={c} {ratio:.2f}×")
        aims.append({"aim": "/healthz at least half of nginx's rate with one worker", "measured": ", ".join(parts),
                     "met": ok})
    idle = res["memory"]["idle"]["VmRSS_kB"] / 1024
    aims.append({"aim": "idle resident memory at most 20 MB", "measured": f"{idle:.1f} MB", "met": idle <= 20})
    res["aims"] = aims


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats, wrk 3 s per point")
    parser.add_argument("--repeats", type=int, help="cold runs per contender and scenario (default 5; --quick 2)")
    parser.add_argument("--pages", default="10,50,200", help="page counts for cold runs")
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--page-size", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--link-lookahead", type=int, default=None,
                        help="the Link route's lookahead (default: concurrency - 1, so the first round is one latency)")
    parser.add_argument("--wrk-seconds", type=int, help="per wrk point (default 10; --quick 3)")
    parser.add_argument("--warm-pages", type=int, default=10, help="pages of the warm aggregate")
    parser.add_argument("--skip", default="", help="comma list of parts to skip: cold,warm,healthz")
    parser.add_argument("--binary", default=B.BINARY)
    parser.add_argument("--build", action="store_true", help="run swift build -c release first")
    args = parser.parse_args()
    args.repeats = args.repeats or (2 if args.quick else 5)
    args.wrk_seconds = args.wrk_seconds or (3 if args.quick else 10)
    args.pages = [int(p) for p in args.pages.split(",")]
    skip = set(filter(None, args.skip.split(",")))
    if not 1 <= args.repeats <= 50 or not 1 <= args.wrk_seconds <= 120 or max(args.pages) > 5000:
        sys.exit("bounds: repeats 1..50, wrk seconds 1..120, pages <= 5000")

    B.sigterm_as_interrupt()
    B.ensure_tools("wrk", "nginx")
    python = B.ensure_venv()
    binary = B.ensure_binary(os.path.abspath(args.binary), rebuild=args.build)
    os.makedirs(B.RESULTS, exist_ok=True)
    work = B.workdir("pageproxy-peers-")
    mock_port, pp_port, nginx_port = B.free_port(), B.free_port(), B.free_port()
    res = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": B.machine_info(),
           "config": {"latency_ms": args.latency_ms, "page_size": args.page_size, "concurrency": args.concurrency,
                      "repeats": args.repeats, "wrk_seconds": args.wrk_seconds, "pages": args.pages,
                      "quick": args.quick, "binary": binary,
                      "git": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=B.ROOT, capture_output=True,
                                            text=True).stdout.strip()},
           "peer_versions": json.loads(subprocess.run(
               [python, "-c", "import json, importlib.metadata as m; print(json.dumps({p: m.version(p) for p in "
                              "['requests', 'dlt', 'aiohttp', 'matplotlib']}))"],
               capture_output=True, text=True, check=True).stdout)}
    mock = pp = nginx = worker = None
    try:
        mock = B.start_mock(binary, mock_port, args.latency_ms, page_size=args.page_size)
        lookahead = args.concurrency - 1 if args.link_lookahead is None else args.link_lookahead
        res["link_lookahead"] = lookahead
        pp = B.start_pageproxy(binary, pageproxy_config(pp_port, mock_port, args.concurrency,
                                                         os.path.join(work, "cache"), lookahead), work)
        time.sleep(1.0)
        res["memory"] = {"idle": B.proc_memory(pp.pid)}
        B.log(f"PageProxy idle: {res['memory']['idle']}")
        worker = PeerWorker(python)
        if "cold" not in skip:
            B.log("cold aggregation ...")
            res["cold"] = cold_runs(args, pp_port, mock_port, worker)
        merged_conn = http.client.HTTPConnection("127.0.0.1", pp_port, timeout=60)
        merged_conn.request("GET", f"/github?mock_total={args.warm_pages * args.page_size}")
        merged = merged_conn.getresponse().read()
        merged_conn.close()
        assert len(json.loads(merged)) == args.warm_pages * args.page_size
        nginx = B.start_nginx(work, nginx_port, {"/merged.json": merged})
        for part, run in (("warm", lambda: warm_runs(args, pp_port, nginx_port, merged)),
                          ("healthz", lambda: healthz_runs(args, pp_port, nginx_port))):
            if part in skip:
                continue
            B.log(f"{part} ...")
            try:
                res[part] = run()
            except Exception as e:  # recorded, so the cold results already measured are still reported
                res.setdefault("failures", []).append({"part": part, "error": f"{type(e).__name__}: {e}"})
                B.log(f"{part} failed: {type(e).__name__}: {e}")
            if pp.poll() is not None:
                crash = os.path.join(B.RESULTS, f"pageproxy-died-{time.strftime('%Y%m%d-%H%M%S')}.log")
                shutil.copyfile(os.path.join(work, "pageproxy.log"), crash)
                res.setdefault("failures", []).append(
                    {"part": part, "error": f"PageProxy exited with status {pp.returncode} during {part}",
                     "log": os.path.relpath(crash, B.ROOT)})
                B.log(f"PageProxy DIED during {part} (status {pp.returncode}); its output: {crash}")
                break
        if pp.poll() is None:
            res["memory"]["after"] = B.proc_memory(pp.pid)
    finally:
        if worker:
            worker.stop()
        B.stop(nginx, "nginx")
        B.stop(pp, "PageProxy")
        B.stop(mock, "mock")
    res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    res["machine"]["loadavg_at_end"] = os.getloadavg()
    if "cold" in res:
        summarise(res, args)
    else:
        res["cold_summary"], res["aims"] = [], []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for name in (f"peers-{stamp}.json", "peers-latest.json"):
        with open(os.path.join(B.RESULTS, name), "w") as f:
            json.dump(res, f, indent=1)
    text = report(res) if res["cold_summary"] else json.dumps(res.get("memory"), indent=1)
    with open(os.path.join(B.RESULTS, "peers-latest.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    B.log(f"raw results: bench/results/peers-{stamp}.json")


if __name__ == "__main__":
    main()
