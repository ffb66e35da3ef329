#!/usr/bin/env python3
"""attack20: the offset findings on the built-in mock's own habits (drf route: offset, limit 10, count).
Each window is compared with the merged answer's items at its positions. Usage: mock_repro.py --binary B
"""
import argparse, json, os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_config, start_proxy, stop, get, parse_items, wait_port  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--pp", type=int, default=18631)
ap.add_argument("--mock", type=int, default=18632)
a = ap.parse_args()
CASES = [  # (name, mock query, window query, offset, limit)
    ("F cap 7, count 85% (17 of 20)", "mock_total=20&mock_cap=7&mock_count_percent=85", "_offset=13", 13, None),
    ("F' cap 7, count 85%, _offset=12", "mock_total=20&mock_cap=7&mock_count_percent=85", "_offset=12", 12, None),
    ("A cap 3, past_end=last, true count", "mock_total=37&mock_cap=3&mock_past_end=last", "_offset=13", 13, None),
    ("B cap 3, past_end=last, at total", "mock_total=25&mock_cap=3&mock_past_end=last", "_offset=25", 25, None),
    ("C count 133%, past_end=last", "mock_total=30&mock_count_percent=133&mock_past_end=last", "_offset=30", 30, None),
    ("H 9 items, past_end=last (whole)", "mock_total=9&mock_past_end=last", "", 0, None),
    ("I plain, past_end=last, true count", "mock_total=20&per_page=10&mock_past_end=last", "_offset=40&_limit=1", 40, 1),
    ("I2 plain, past_end=last, count 95%", "mock_total=20&per_page=10&mock_past_end=last&mock_count_percent=95", "_offset=40&_limit=1", 40, 1),
    ("I3 plain, past_end=last, count 130%", "mock_total=20&per_page=10&mock_past_end=last&mock_count_percent=130", "_offset=20&_limit=10", 20, 10),
    ("I4 plain, past_end=last, no count", "mock_total=20&per_page=10&mock_past_end=last&mock_count_percent=0", "_offset=20&_limit=10", 20, 10),
    ("W drf, past_end=last, true count, far", "mock_total=9&mock_past_end=last", "_offset=30&_limit=5", 30, 5),
    ("W2 drf, past_end=last, true count, far", "mock_total=20&mock_past_end=last", "_offset=36&_limit=1", 36, 1),
]
ROUTE = {}
cfgp = "/tmp/attack20/mockrepro.json"
cache = "/tmp/attack20/cache-mockrepro"
for name, mq, wq, o, l in CASES:
    for fmt in ("json", "ndjson"):
        shutil.rmtree(cache, ignore_errors=True)
        write_config(cfgp, a.pp, cache, [
            {"name": "drf", "upstream": "http://127.0.0.1:%d/drf/items/" % a.mock,
             "pagination": {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "items": "results", "retries": 0},
            {"name": "truth", "upstream": "http://127.0.0.1:%d/drf/items/" % a.mock,
             "pagination": {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "items": "results", "ttlSeconds": 0},
            {"name": "plain", "upstream": "http://127.0.0.1:%d/plain/items" % a.mock,
             "pagination": {"scheme": "page-number", "pageSize": 10}, "retries": 0},
            {"name": "ptruth", "upstream": "http://127.0.0.1:%d/plain/items" % a.mock,
             "pagination": {"scheme": "page-number", "pageSize": 10}, "ttlSeconds": 0}])
        c = json.load(open(cfgp)); c["mock"] = {"address": "127.0.0.1", "port": a.mock, "items": 250, "pageSize": 20}
        json.dump(c, open(cfgp, "w"))
        pp = start_proxy(a.binary, cfgp, a.pp, "/tmp/attack20/mockrepro.log")
        try:
            wait_port(a.mock)
            r = "plain" if mq.find("per_page") >= 0 else "drf"
            st, h, body = get(a.pp, "/%s?" % ("truth" if r == "drf" else "ptruth") + mq)
            merged = [x["id"] for x in json.loads(body)] if st == 200 else None
            target = "/%s?" % r + "&".join(x for x in (mq, wq, "_format=ndjson" if fmt == "ndjson" else "") if x)
            st2, h2, body2 = get(a.pp, target)
            items, err = parse_items(st2, h2, body2, fmt == "ndjson")
            ids = [x.get("id") for x in items or []]
            want = None if merged is None else (merged[o:o + l] if l else merged[o:])
            verdict = "OK" if err is None and ids == want else ("ERR" if err else "WRONG")
            print("%-5s %-36s %-6s merged=%s GET %s -> %d %s want %s %s" % (verdict, name, fmt, st if merged is None else len(merged),
                  target, st2, ids, want, (err or "")[:100]))
            sys.stdout.flush()
        finally:
            stop(pp)
