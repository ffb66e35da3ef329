#!/usr/bin/env python3
"""Offset grid against the built-in mock: compare PageProxy's answers with the mock's whole list (offset20).

Routes with and without a total (`drf`, `offset`) at limits 10 and 20; `mock_cap` none/7/15; `mock_show_every` 1-3;
`mock_total` 30/47/100; merged, NDJSON, `_max_items`, and `_offset`/`_limit` windows (asked after the merged walk, so
the cache serves what it can). Loopback only; every request bounded by a timeout; the server is stopped by its PID.

    python3 bench/offset-filter-grid.py .build/release/PageProxy /tmp/grid.json [port] [--more]

`--more` (filtwin21) adds cells the default grid does not have: `mock_hide_every` 4 and 15, and every window also as
NDJSON (the default 1,080 cells stay the same, in the same order, numbered first).
"""
import json, os, subprocess, sys, time, urllib.request, urllib.error, itertools, shutil, socket, http.client

more = "--more" in sys.argv
args = [a for a in sys.argv[1:] if a != "--more"]
binary = args[0]
out = args[1]
port = int(args[2]) if len(args) > 2 else 18480
mport = port + 1
work = f"/tmp/offset-grid-{port}"
shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
routes = []
for L in (10, 20):
    routes.append({"name": f"drf{L}", "upstream": f"http://127.0.0.1:{mport}/drf/items/",
                   "pagination": {"scheme": "offset", "limit": L, "totalItemsPath": "count"}, "items": "results"})
    routes.append({"name": f"off{L}", "upstream": f"http://127.0.0.1:{mport}/offset/items",
                   "pagination": {"scheme": "offset", "limit": L}, "items": "items"})
cfg = {"listen": {"address": "127.0.0.1", "port": port}, "cache": {"directory": work + "/cache", "maxBytes": 268435456},
       "logLevel": "error", "mock": {"address": "127.0.0.1", "port": mport, "items": 250, "pageSize": 20, "latencyMs": 0},
       "routes": routes}
json.dump(cfg, open(work + "/config.json", "w"))
proc = subprocess.Popen([binary, "serve", "--config", work + "/config.json"], stdout=open(work + "/log", "w"), stderr=subprocess.STDOUT)
try:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); socket.create_connection(("127.0.0.1", mport), 0.2).close(); break
        except OSError: time.sleep(0.1)
    def get(path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except http.client.IncompleteRead as e:
            # A stream cut after its head (an NDJSON walk that failed once its head was sent): a wrong cell.
            return -1, e.partial
    def ids_of(status, body, ndjson):
        if status != 200: return None
        if ndjson:
            lines = [json.loads(l) for l in body.decode().splitlines() if l.strip()]
            return [l["id"] for l in lines if isinstance(l, dict) and "id" in l]
        return [i["id"] for i in json.loads(body)]
    rows = []; n = 0
    cases = [c + (False,) for c in itertools.product(["drf10", "off10", "drf20", "off20"], [None, 7, 15], [1, 2, 3], [30, 47, 100], [False])]
    if more:
        # Second pass: every case again with the extra windows only; the hiding cases with every request form.
        cases += [c + (True,) for c in itertools.product(["drf10", "off10", "drf20", "off20"], [None, 7, 15], [1, 2, 3], [30, 47, 100], [False])]
        cases += [c + (False,) for c in itertools.product(["drf10", "off10", "drf20", "off20"], [None, 7, 15], [4, 15], [30, 47, 100], [True])]
    for route, cap, show, total, hides, extraOnly in cases:
        if hides:
            truth = [i for i in range(1, total + 1) if i % show != 0]
            filt = f"&mock_hide_every={show}"
        else:
            truth = [i for i in range(1, total + 1) if i % show == 0]
            filt = f"&mock_show_every={show}" if show > 1 else ""
        q = f"mock_total={total}" + (f"&mock_cap={cap}" if cap else "") + filt
        windows = [("", truth), ("&_format=ndjson", truth)]
        for (o, l) in ((0, 5), (5, 5), (3, 12), (10, 10)):
            windows.append((f"&_offset={o}&_limit={l}", truth[o:o + l]))
        for m in (4, 11):
            windows.append((f"&_max_items={m}", truth[:m]))
            windows.append((f"&_max_items={m}&_format=ndjson", truth[:m]))
        if extraOnly:
            windows = []
        if more and (hides or extraOnly):
            for (o, l) in ((0, 5), (5, 5), (3, 12), (10, 10), (25, 10)):
                windows.append((f"&_offset={o}&_limit={l}&_format=ndjson", truth[o:o + l]))
            windows.append(("&_offset=25&_limit=10", truth[25:35]))
        for extra, want in windows:
            n += 1
            path = f"/{route}?{q}&x={n}{extra}"
            st, body = get(path)
            got = ids_of(st, body, "ndjson" in extra)
            ok = got == want
            rows.append({"route": route, "cap": cap, "show": show, "hides": hides, "total": total, "extra": extra, "status": st, "ok": ok,
                         "got": got if not ok else None, "want": want if not ok else None,
                         "err": body[:200].decode(errors="replace") if st != 200 else None})
    json.dump(rows, open(out, "w"), indent=0)
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows)} cells, {len(bad)} wrong; 200-wrong {sum(1 for r in bad if r['status'] == 200)}; non-200 {sum(1 for r in bad if r['status'] != 200)}")
finally:
    proc.terminate(); proc.wait(10)
