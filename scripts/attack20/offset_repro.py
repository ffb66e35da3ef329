#!/usr/bin/env python3
"""attack20: reproducers of offset_grid.py's findings, each request alone on a fresh cache (and fresh process).

Each case: the hostile upstream's path (N/cap/total/past/floor, see hostile.py) and the request's query; the
expected items are the slice of 0..N-1 the window names. Prints OK / WRONG per case.
Usage: offset_repro.py --binary B [--case NAME]
"""
import argparse, os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import start_hostile, write_config, start_proxy, stop, get, parse_items  # noqa

CASES = {
    # name: (variant, query, expected slice (offset, limit or None))
    "A-cap3-true-lastrepeat-offset13": ("37/3/true/last/no", "_offset=13", (13, None)),
    "A2-cap3-true-lastrepeat-whole": ("37/3/true/last/no", "", (0, None)),
    "A3-cap3-true-lastrepeat-offset30": ("37/3/true/last/no", "_offset=30", (30, None)),
    "B-cap3-true-lastrepeat-at-total": ("25/3/true/last/no", "_offset=25", (25, None)),
    "B2-cap3-true-lastrepeat-past-total": ("25/3/true/last/no", "_offset=26&_limit=5", (26, 5)),
    "C-total-high-lastrepeat-offset30": ("30/0/+10/last/no", "_offset=30", (30, None)),
    "D-total-high-lastrepeat-offset15": ("9/10/+10/last/no", "_offset=15&_limit=10", (15, 10)),
    "E-cap3-total-low1-lastrepeat": ("10/3/-1/last/no", "_offset=5&_limit=10", (5, 10)),
    "F-cap7-total-low3-offset13": ("20/7/-3/404/no", "_offset=13", (13, None)),
    "F2-cap7-total-low3-whole": ("20/7/-3/404/no", "", (0, None)),
    "F3-cap7-total-low3-empty-offset13": ("20/7/-3/empty/no", "_offset=13", (13, None)),
    "A4-cap3-true-tailrepeat-offset13": ("37/3/true/tail/no", "_offset=13", (13, None)),
    "B3-cap3-true-tailrepeat-at-total": ("25/3/true/tail/no", "_offset=25", (25, None)),
    "C2-total-high-tailrepeat-offset30": ("30/0/+10/tail/no", "_offset=30", (30, None)),
    "H-shortlist-lastrepeat-whole": ("9/0/none/last/no", "", (0, None)),
    "H2-shortlist-lastrepeat-maxitems13": ("9/0/none/last/no", "_max_items=13", (0, 13)),
    "H3-shortlist-lastrepeat-offset5": ("9/0/none/last/no", "_offset=5&_limit=10", (5, 10)),
    "G-floor20-offset37": ("37/0/true/empty/20", "_offset=37", (37, None)),
}

ap = argparse.ArgumentParser()
ap.add_argument("--binary", required=True)
ap.add_argument("--case", default="")
ap.add_argument("--adhoc", action="append", default=[], help="variant|query|offset|limit-or-empty")
ap.add_argument("--pp", type=int, default=18616)
ap.add_argument("--up", type=int, default=18626)
a = ap.parse_args()
for i, spec in enumerate(a.adhoc):
    v, q, o, l = spec.split("|")
    CASES["adhoc%d" % i] = (v, q, (int(o), int(l) if l else None))
    a.case = "" if len(a.adhoc) > 1 else "adhoc0"
if a.adhoc:
    CASES = {k: v for k, v in CASES.items() if k.startswith("adhoc")}
cfgp = "/tmp/attack20/repro.json"
cache = "/tmp/attack20/cache-repro"
up = start_hostile(a.up)
try:
    for name, (variant, q, (o, l)) in CASES.items():
        if a.case and a.case != name:
            continue
        n = int(variant.split("/")[0])
        want = list(range(n))[o:o + l] if l else list(range(n))[o:]
        for fmt in ("json", "ndjson"):
            shutil.rmtree(cache, ignore_errors=True)
            write_config(cfgp, a.pp, cache, [
                {"name": "off", "upstream": "http://127.0.0.1:%d/off" % a.up,
                 "pagination": {"scheme": "offset", "limit": 10, "totalItemsPath": "count"}, "items": "results",
                 "concurrency": 4, "retries": 0, "maxPages": 60}])
            pp = start_proxy(a.binary, cfgp, a.pp, "/tmp/attack20/repro-proxy.log")
            try:
                target = "/off/%s/items?%s" % (variant, "&".join(x for x in (q, "_format=ndjson" if fmt == "ndjson" else "") if x))
                st, h, body = get(a.pp, target)
                items, err = parse_items(st, h, body, fmt == "ndjson")
                ids = [x.get("id") for x in items or []]
                verdict = "OK" if (err is None and ids == want) else ("ERR" if err else "WRONG")
                print("%-5s %-38s %-6s GET %s -> %d %s (want %s) Total=%s Truncated=%s %s" % (
                    verdict, name, fmt, target, st, ids, want, h.get("pageproxy-total"), h.get("pageproxy-truncated"),
                    (err or "")[:120]))
                sys.stdout.flush()
            finally:
                stop(pp)
finally:
    stop(up)
