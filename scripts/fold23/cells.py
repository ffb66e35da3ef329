#!/usr/bin/env python3
"""fold23: ask a few URLs of one binary on a fresh server (routes `drfnt` and `off`: offset, limit 10, no total, against
the built-in mock), one request each, each list new to the server (`zz=cN` added unless NOZZ=1). Prints status, ids, NEXT.
Usage: cells.py BINARY PORT URL... (the mock listens on PORT+1; loopback only; the server is stopped by its PID).
`start_server` is shared with scripts/fold23b/sweep.py."""
import os
import json, subprocess, sys, time, socket, urllib.request, shutil


def start_server(binary, port, work):
    """Starts `binary` on `port` with its built-in mock on `port`+1 (scratch in `work`), once it listens; the Popen."""
    mport = port + 1
    shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
    routes = [{"name": "drfnt", "upstream": f"http://127.0.0.1:{mport}/drf/items/", "pagination": {"scheme": "offset", "limit": 10}, "items": "results"},
              {"name": "off", "upstream": f"http://127.0.0.1:{mport}/offset/items", "pagination": {"scheme": "offset", "limit": 10}, "items": "items"}]
    cfg = {"listen": {"address": "127.0.0.1", "port": port}, "cache": {"directory": work + "/cache", "maxBytes": 67108864}, "logLevel": "error",
           "mock": {"address": "127.0.0.1", "port": mport, "items": 250, "pageSize": 20, "latencyMs": 0}, "routes": routes}
    json.dump(cfg, open(work + "/config.json", "w"))
    p = subprocess.Popen([binary, "serve", "--config", work + "/config.json"], stdout=open(work + "/log", "w"), stderr=subprocess.STDOUT)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); return p
        except OSError:
            time.sleep(0.1)
    p.terminate(); p.wait(10)
    raise SystemExit(f"{binary} did not listen on {port}")


if __name__ == "__main__":
    binary, port = sys.argv[1], int(sys.argv[2])
    p = start_server(binary, port, f"/tmp/fold23-cells/w{port}")
    try:
        for i, q in enumerate(sys.argv[3:]):
            sep = "&" if "?" in q else "?"
            url = f"http://127.0.0.1:{port}{q}" if os.environ.get("NOZZ") else f"http://127.0.0.1:{port}{q}{sep}zz=c{i}"
            try:
                r = urllib.request.urlopen(url, timeout=30); body = r.read().decode(); st = r.status; link = r.headers.get("Link") or ""
            except urllib.error.HTTPError as e:
                body = e.read().decode()[:120]; st = e.code; link = ""
            ids = [int(x.split(",")[0].split("}")[0]) for x in body.split('{"id":')[1:]]
            print(st, q, ids if st == 200 else body[:100], "NEXT" if 'rel="next"' in link else "")
    finally:
        p.terminate(); p.wait(10)
