#!/usr/bin/env python3
"""pastend21: windows past (and near) the end of lists whose upstream answers past its end in one of three habits.

Grid: route (page-number / offset, with and without a total) x mock_total x page size (the client's per_page/limit)
x upstream habit (honest, mock_cap=4, mock_ignores=limit on offset routes) x past-end habit (empty, last = Django's
get_page(), 404) x window start/size. Each window's items are compared with the truth (ids 1..N sliced), and the
upstream requests each cell cost are read from /metrics (pageproxy_upstream_pages_total). Both binaries run side by
side against one shared mock (the after binary's `mock`, which knows mock_past_end=404), cell by cell interleaved.

Usage: grid.py --before B --after A [--mock-binary M] [--base-port 18940] [--seconds 900] [--only route,...]
Verdicts: OK (200, right items), WRONG (200, other items), ERR (not 200), plus NEXT_ON_EMPTY (a [] past the end
with rel="next") and OVER (upstream requests > 3 x pages the window covers + 2). Loopback only; every process
stopped by its PID.
"""
import argparse, http.client, json, os, re, shutil, signal, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
from benchlib import wait_listening  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--before", required=True)
ap.add_argument("--after", required=True)
ap.add_argument("--mock-binary")
ap.add_argument("--base-port", type=int, default=18940)
ap.add_argument("--seconds", type=float, default=900)
ap.add_argument("--only", default="")
ap.add_argument("--scratch", default="/tmp/pastend21/grid")
ap.add_argument("--show", type=int, default=40, help="wrong/err cells printed per binary")
ap.add_argument("--dump", help="write each cell's verdicts (one JSON line a cell) here")
a = ap.parse_args()

MOCK = a.base_port
shutil.rmtree(a.scratch, ignore_errors=True)
os.makedirs(a.scratch)

ROUTES = {  # name: (upstream path, pagination, items path, size parameter)
    "plain": ("/plain/items", {"scheme": "page-number", "pageSize": 10}, None, "per_page"),
    "wrapped": ("/wrapped/items", {"scheme": "page-number", "pageSize": 10, "sizeParameter": "per_page",
                                   "totalItemsPath": "total_count"}, "items", "per_page"),
    "drfnt": ("/drf/items/", {"scheme": "offset", "limit": 10}, "results", "limit"),
    "drf": ("/drf/items/", {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "results", "limit"),
}
only = [r for r in a.only.split(",") if r]



def get(port, target):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.request("GET", target)
        r = c.getresponse()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read()
    finally:
        c.close()


def upstream_pages(port):
    st, _, body = get(port, "/metrics")
    total = 0
    for line in body.decode().splitlines():
        if line.startswith("pageproxy_upstream_pages_total{"):
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


def start(binary, name, port):
    cache = os.path.join(a.scratch, "cache-" + name)
    routes = []
    for r, (path, pag, items, _) in ROUTES.items():
        route = {"name": r, "upstream": "http://127.0.0.1:%d%s" % (MOCK, path), "pagination": pag, "retries": 0,
                 "ttlSeconds": 0}
        if items:
            route["items"] = items
        routes.append(route)
    cfg = {"listen": {"address": "127.0.0.1", "port": port}, "cache": {"directory": cache, "maxBytes": 268435456},
           "logLevel": "error", "routes": routes}
    path = os.path.join(a.scratch, name + ".json")
    json.dump(cfg, open(path, "w"))
    p = subprocess.Popen([binary, "serve", "--config", path], stdout=open(os.path.join(a.scratch, name + ".log"), "w"),
                         stderr=subprocess.STDOUT)
    try:
        wait_listening(port, p, limit=30.0, name=name)
    except RuntimeError as error:
        p.kill()
        raise SystemExit(str(error))
    return p


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def cells():
    for route in ROUTES:
        if only and route not in only:
            continue
        offset_route = route.startswith("drf")
        for n in (0, 5, 10, 20, 25, 37):
            for size in (10, 7):
                for habit in ("honest", "cap4", "ignores") if offset_route else ("honest", "cap4"):
                    for past in ("empty", "last", "404"):
                        mq = ["mock_total=%d" % n, "%s=%d" % (ROUTES[route][3], size)]
                        if habit == "cap4":
                            mq.append("mock_cap=4")
                        if habit == "ignores":
                            mq.append("mock_ignores=limit")
                        if past != "empty":
                            mq.append("mock_past_end=" + past)
                        starts = sorted(set(x for x in (0, size - 1, size, 2 * size, n - 1, n, n + 1, n + size, n + 3 * size)
                                            if x >= 0))
                        for o in starts:
                            for l in (1, size, 3 * size):
                                yield route, n, size, habit, past, "&".join(mq), o, l


def covered(n, o, l, size):
    end = min(o + l, n)
    if o >= end:
        return 0
    return (end - 1) // size - o // size + 1


def run_cell(port, route, mq, o, l, n):
    before = upstream_pages(port)
    target = "/%s?%s&_offset=%d&_limit=%d" % (route, mq, o, l)
    st, h, body = get(port, target)
    used = upstream_pages(port) - before
    want = list(range(1, n + 1))[o:o + l]
    if st != 200:
        return "ERR", used, "%d %s" % (st, body[:160].decode(errors="replace")), target
    try:
        ids = [x.get("id") for x in json.loads(body)]
    except Exception as e:  # noqa
        return "ERR", used, "bad json %s" % e, target
    nxt = 'rel="next"' in h.get("link", "")
    if ids != want:
        return "WRONG", used, "got %s want %s%s" % (ids[:12], want[:12], " +next" if nxt else ""), target
    if not ids and nxt and o >= n:
        return "NEXT_ON_EMPTY", used, "", target
    return "OK", used, "", target


mock = subprocess.Popen([a.mock_binary or a.after, "mock", "--port", str(MOCK), "--items", "250", "--page-size", "20"],
                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(a.scratch, "mock.log"), "w"))
procs = []
try:
    wait_listening(MOCK, mock, limit=30.0, name="mock")
    procs = [("before", start(a.before, "before", a.base_port + 1), a.base_port + 1),
             ("after", start(a.after, "after", a.base_port + 2), a.base_port + 2)]
    counts = {name: {} for name, _, _ in procs}
    over = {name: 0 for name, _, _ in procs}
    shown = {name: 0 for name, _, _ in procs}
    maxratio = {name: 0.0 for name, _, _ in procs}
    total_used = {name: 0 for name, _, _ in procs}
    deadline = time.time() + a.seconds
    ncells = 0
    # Cells right on before and not on after (fix22a: the brief asks for every cell that went right -> wrong).
    regressed = []
    dump = open(a.dump, "w") if a.dump else None
    for route, n, size, habit, past, mq, o, l in cells():
        if time.time() > deadline:
            print("time bound reached after %d cells" % ncells)
            break
        ncells += 1
        cov = covered(n, o, l, size)
        verdicts = {}
        for name, _, port in procs:
            verdict, used, detail, target = run_cell(port, route, mq, o, l, n)
            verdicts[name] = (verdict, used, detail)
            counts[name][verdict] = counts[name].get(verdict, 0) + 1
            total_used[name] += used
            if used > 3 * cov + 2:
                over[name] += 1
                if shown[name] < a.show:
                    print("%-6s OVER   %s pages=%d covered=%d" % (name, target, used, cov))
                    shown[name] += 1
            if verdict in ("WRONG", "ERR") and shown[name] < a.show:
                print("%-6s %-6s %s pages=%d %s" % (name, verdict, target, used, detail))
                shown[name] += 1
        if verdicts["before"][0] == "OK" and verdicts["after"][0] != "OK":
            regressed.append((target, verdicts["after"]))
            print("RIGHT->WRONG %s after=%s" % (target, verdicts["after"]))
        if dump:
            dump.write(json.dumps({"target": target, **{k: list(v) for k, v in verdicts.items()}}) + "\n")
        sys.stdout.flush()
    print("cells: %d" % ncells)
    print("right -> wrong (before OK, after not): %d" % len(regressed))
    if dump:
        dump.close()
    for name, _, _ in procs:
        print("%-6s %s over_bound=%d upstream_pages=%d" % (name, json.dumps(counts[name], sort_keys=True), over[name], total_used[name]))
finally:
    for _, p, _ in procs:
        stop(p)
    stop(mock)
