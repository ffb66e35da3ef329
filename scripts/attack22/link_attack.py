#!/usr/bin/env python3
"""attack22: PageProxy (a release binary) against link_hostile.py, one `link-header` route per variant.

Each variant's list is 95 items in pages of 10. For each: merged JSON cold, NDJSON cold, merged again (cached). An
answer is RIGHT when it holds the 95 items in order, WRONG when it is a 200 holding anything else (a decoy item, a lost
or repeated item), and ERR (status, error code) otherwise; `expect` says which a variant should give. The upstream's log
says whether a decoy or a foreign target was ever asked for.

  python3 scripts/attack22/link_attack.py --binary PATH [--only v1,v2] [--port 28960] [--scratch DIR]

Loopback only; the hostile server and PageProxy are stopped by PID at the end. Scratch: --scratch (default /tmp/attack22/; remove it when done).
"""
import argparse
import http.client
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
from benchlib import stop, wait_listening  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRATCH = "/tmp/attack22"
N = 95

# variant -> (expect, why). expect: "items" (the whole list), "error" (an honest error: no 200), "either".
VARIANTS = {
    "std": ("items", "next, last (fan-out) and prev, absolute"),
    "nolast": ("items", "next alone"),
    "relq": ("items", "<?page=2&per_page=10> (a query-only reference)"),
    "relpath": ("items", "<items?page=2…> (a relative path)"),
    "reldots": ("items", "<../reldots/items?page=2…>"),
    "schemerel": ("items", "<//127.0.0.1:PORT/…> (same origin)"),
    "upper": ("items", 'REL="NEXT", HTTP:// in capitals'),
    "unquoted": ("items", "<…>;rel=next"),
    "bws": ("items", '<…> ;  rel = "next" (BWS)'),
    "multirel": ("items", 'rel="nofollow next\\tlast-but-not-least"'),
    "twofields": ("items", "next and prev in separate Link fields, a decoy rel=alternate first"),
    "quotedcomma": ("items", 'a title holding `a, <decoy>; rel="next"` before the real next'),
    "quotedgt": ("items", 'title=">;,<x>" before rel'),
    "reltwice": ("items", 'decoy `rel="prev"; rel="next"` (the second rel is ignored, RFC 8288 §3.3) first'),
    "rev": ("items", 'decoy rev="next" first'),
    "nextarchive": ("items", 'decoys rel="next-archive", rel="nextpage" first'),
    "anchor": ("items", 'decoy `rel="next"; anchor="/decoy/items"` first (RFC 8288 §3.2: another context)'),
    "fragment": ("items", "next with #frag"),
    "titlestar": ("items", "title*=UTF-8'de'n%c3%a4chste before rel"),
    "emptyparams": ("items", '<…>;; ;rel="next";'),
    "obsfold": ("items", "the Link field folded over three lines (obs-fold)"),
    "malformedfirst": ("items", "a link-value without <> before the real next"),
    "unclosed": ("either", 'an unclosed `<decoy; rel="prev"` before the real next'),
    "commainurl": ("items", "`,` and `;` inside the <URL>"),
    "plusquery": ("items", "q=a+b%2Bc kept as written through last's fan-out (the upstream answers 400 otherwise)"),
    "utf8": ("either", "raw UTF-8 ü in the link's query (must reach the upstream as ü)"),
    "spaceinurl": ("either", "a raw space inside the URL"),
    "wsbrackets": ("either", "< URL > (spaces inside the brackets)"),
    "lastlow": ("items", "rel=last says page 3, next goes on to page 10"),
    "lasthigh": ("items", "rel=last says page 20, pages 11-20 are []"),
    "lastfirstonly": ("items", "last on page 1 only"),
    "lastreorder": ("items", "last's query in another order"),
    "lastnext": ("items", 'the next-to-last page: rel="next last" in one value'),
    "lastzero": ("items", "rel=last at page=0"),
    "lasthuge": ("error", "rel=last at page=99999999999999999999999 (README: a stated end over maxPages fails at the first page)"),
    "lastover": ("error", "rel=last at page 2000 > maxPages 1000 (README: too_many_pages at the first page)"),
    "titlerel": ("items", 'a prev with title="rel=next" on every page; the last page has no next'),
    "anchorself": ("items", 'next with anchor="" (this very page)'),
    "lastforeign": ("items", "rel=last on 127.0.0.2 (must never be asked), next fine"),
    "manylinks": ("items", "1,200 rel=item link-values before next (~55 KB field)"),
    "manyfields": ("items", "1,200 Link fields, next in the last (~60 KB)"),
    "manyheaders": ("items", "3,000 other header fields"),
    "hugeheader": ("error", "a 70 KB header on every page (over the 64 KiB head limit)"),
    "hugeheader2": ("error", "a 70 KB header on page 3"),
    "biglink": ("items", "a 60 KB next link"),
    "nextself": ("error", "the last page links to itself"),
    "emptytarget": ("error", "the last page's next is <>"),
    "https": ("error", "next on https://same host:port"),
    "filescheme": ("error", "next is file:///etc/passwd"),
    "userinfo": ("items", "next with user:pw@ (same origin)"),
    "localhost": ("error", "next on localhost (another host)"),
    "defaultport80": ("error", "next on :80 (another origin)"),
    "hostdot": ("error", "next on 127.0.0.1. (trailing dot)"),
    "interim": ("items", "three 103 Early Hints with a decoy next before every 200"),
    "interimflood": ("error", "page 2: 100 Continue every 0.2 s for 60 s (pageTimeoutSeconds 5)"),
    "dupcl": ("error", "page 2: two different Content-Length"),
    "dupclsame": ("items", "the same Content-Length twice"),
    "trailerlink": ("items", "chunked, a decoy Link in the trailer"),
    "linkcase": ("items", "the field name LINK"),
    "dupctype": ("items", "two Content-Type fields (json, html)"),
    "nullbyte": ("error", "page 2: a NUL in a header value"),
    "bareLF": ("either", "every line ends in a bare LF"),
    "http10": ("items", "HTTP/1.0 with Connection: keep-alive"),
}


def get(port, target, timeout=90):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", target)
        r = c.getresponse()
        try:
            body = r.read()
        except http.client.IncompleteRead as e:
            body = e.partial
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body
    finally:
        c.close()


def truth():
    out = []
    for i in range(N):
        out.append({"id": i, "s": "item %d" % i if i % 7 else "quote \" comma , \u00fc \u2028 %d" % i})
    return out


def judge(status, body, ndjson):
    """('RIGHT'|'WRONG'|'ERR', detail)."""
    if status != 200:
        try:
            err = json.loads(body).get("error", "")
        except Exception:
            err = body[:80].decode(errors="replace")
        return "ERR", "%d %s" % (status, err)
    try:
        if ndjson:
            got, err = [], None
            for line in body.split(b"\n"):
                if not line:
                    continue
                if line.startswith(b"!pageproxy-error"):
                    err = line.decode(errors="replace")[:120]
                    continue
                got.append(json.loads(line))
        else:
            got, err = json.loads(body), None
    except Exception as e:
        return "WRONG", "200, unreadable body: %s" % e
    want = truth()
    if got == want:
        return "RIGHT", "200, %d items" % len(got)
    ids = [g.get("id") if isinstance(g, dict) else g for g in got]
    if err and got == want[: len(got)]:
        return "ERR", "200 stream cut after %d right items: %s" % (len(got), err)
    return "WRONG", "200, %d items, ids %s…%s%s" % (len(got), ids[:5], ids[-3:], (" then " + err) if err else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--only")
    ap.add_argument("--port", type=int, default=28960)
    ap.add_argument("--scratch", default=SCRATCH, help="config, cache and logs (emptied first)")
    a = ap.parse_args()
    scratch = a.scratch
    names = a.only.split(",") if a.only else list(VARIANTS)
    pp, hp = a.port, a.port + 1
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    routes = []
    for v in names:
        r = {"name": v, "upstream": "http://127.0.0.1:%d/%s/items" % (hp, v),
             "pagination": {"scheme": "link-header", "pageSize": 10}}
        if v == "interimflood":
            r["pageTimeoutSeconds"] = 5
        routes.append(r)
    cfg = {"listen": {"address": "127.0.0.1", "port": pp},
           "cache": {"directory": scratch + "/cache", "maxBytes": 268435456},
           "logLevel": "warning", "routes": routes}
    with open(scratch + "/config.json", "w") as f:
        json.dump(cfg, f, indent=1)
    hostile = subprocess.Popen([sys.executable, os.path.join(HERE, "link_hostile.py"), str(hp)],
                               stdout=subprocess.DEVNULL, stderr=open(scratch + "/hostile.err", "w"))
    proxy = None
    bad = 0
    try:
        wait_listening(hp, hostile, limit=30.0, name="link_hostile.py")
        proxy = subprocess.Popen([a.binary, "serve", "--config", scratch + "/config.json"],
                                 stdout=open(scratch + "/proxy.log", "w"), stderr=subprocess.STDOUT)
        wait_listening(pp, proxy, limit=30.0, name="PageProxy (see %s/proxy.log)" % scratch)
        get(hp, "/__log")
        for v in names:
            expect, why = VARIANTS[v]
            cells = []
            for label, target, nd in (("merged", "/" + v, False), ("ndjson", "/%s?_format=ndjson" % v, True),
                                      ("cached", "/" + v, False)):
                t0 = time.time()
                try:
                    st, hd, body = get(pp, target)
                    verdict, detail = judge(st, body, nd)
                except Exception as e:
                    verdict, detail = "ERR", "client: %s" % e
                cells.append((label, verdict, detail, time.time() - t0))
            log = json.loads(get(hp, "/__log")[2])
            strays = [t for t in log if not t.startswith("/%s/" % v)]
            verdicts = {c[1] for c in cells}
            if "WRONG" in verdicts or strays:
                mark = "BAD"
            elif expect == "items" and verdicts != {"RIGHT"}:
                mark = "BAD"
            elif expect == "error" and "RIGHT" in verdicts:
                mark = "NOTE"  # walked what we thought an error: say so, not a failure
            else:
                mark = "ok"
            bad += mark == "BAD"
            print("%-4s %-15s expect %-6s | %s" % (mark, v, expect, why))
            for label, verdict, detail, dt in cells:
                print("       %-6s %-5s %6.2fs %s" % (label, verdict, dt, detail))
            print("       upstream: %d requests%s" % (len(log), ("; OTHER TARGETS: %s" % strays[:4]) if strays else ""))
            sys.stdout.flush()
    finally:
        stop(proxy, "PageProxy")
        stop(hostile, "link_hostile.py")
    print("%d of %d variants BAD" % (bad, len(names)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
