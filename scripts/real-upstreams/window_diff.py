#!/usr/bin/env python3
"""Random windows against the mock, checked against a Python reference (real18): a differential check, bounded.

    python3 scripts/real-upstreams/window_diff.py --binary PATH [--count N] [--seed S] [--routes NAME,…]

Starts `PageProxy mock` (250 items, 20 a page) and a PageProxy whose routes point at its DRF-like routes with the
mock's silent cap (`mock_cap`, DRF's max_limit / PostgREST's db-max-rows), its filter after paginating
(`mock_hide_every`, items hidden that the count still counts), and plain. The reference is the mock's own `next`
links walked in Python (what the list is, as a client that follows them sees it), sliced as README's "Asking for less"
says (windows.expected). Each random request (`_offset`, `_limit`, sometimes `_max_items`) is asked merged on one
PageProxy (its cache and plans shared, as a client's scroll would), and the items and `Link` rel="next" checked
(windows.check); then two scrolls per route (`rel="next"` followed from `?_offset=0&_limit=50`, and 13) must give
the list once, in order. One line per mismatch with the exact request; exit 1 on any. Python standard library only; the
processes are stopped by PID.
"""
import argparse, json, os, random, subprocess, sys, tempfile, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
import benchlib  # noqa: E402
import windows  # noqa: E402
from run import compare, fetch, proxy_get  # noqa: E402

# name: (mock path and query, pagination, whether the route names the total)
ROUTES = {
    "offset": ("/drf/items/", {"scheme": "offset", "limit": 20, "totalItemsPath": "count"}),
    "offset-cap7": ("/drf/items/?mock_cap=7", {"scheme": "offset", "limit": 20, "totalItemsPath": "count"}),
    "offset-cap7-nototal": ("/drf/items/?mock_cap=7", {"scheme": "offset", "limit": 20}),
    "offset-hide5": ("/drf/items/?mock_hide_every=5", {"scheme": "offset", "limit": 20, "totalItemsPath": "count"}),
    "pages": ("/drf-pages/items/", {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 20,
                                    "totalItemsPath": "count"}),
    "pages-cap7": ("/drf-pages/items/?mock_cap=7", {"scheme": "page-number", "sizeParameter": "page_size",
                                                    "pageSize": 20, "totalItemsPath": "count"}),
    "pages-hide5": ("/drf-pages/items/?mock_hide_every=5", {"scheme": "page-number", "sizeParameter": "page_size",
                                                            "pageSize": 20, "totalItemsPath": "count"}),
    "next-cap7": ("/drf/items/?limit=20&mock_cap=7", {"scheme": "next-url", "nextPath": "next",
                                                      "totalItemsPath": "count"}),
}


def truth(origin, path, pagination):
    """The mock's pages, its `next` links walked (the first page asked with the route's size, as PageProxy asks it)."""
    size = pagination.get("limit") or pagination.get("pageSize")
    url = origin + path
    if pagination["scheme"] == "offset":
        url += ("&" if "?" in url else "?") + f"limit={size}"
    elif pagination["scheme"] == "page-number":
        url += ("&" if "?" in url else "?") + f"page_size={size}"
    pages = []
    while url and len(pages) < 1000:
        _, _, body = fetch(url, {})
        document = json.loads(body)
        pages.append((body, document["results"]))
        url = document.get("next")
    return pages


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--count", type=int, default=40, help="random windows per route")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--routes", default=",".join(ROUTES))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="pp-windiff-")
    mock_port, port = benchlib.free_port(), benchlib.free_port()
    mock = subprocess.Popen([args.binary, "mock", "--port", str(mock_port), "--items", "250", "--page-size", "20"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    proxy, failures, asked = None, 0, 0
    try:
        benchlib.wait_listening(mock_port, mock, name="mock")
        origin = f"http://127.0.0.1:{mock_port}"
        names = args.routes.split(",")
        routes = [{"name": name, "upstream": origin + ROUTES[name][0], "pagination": ROUTES[name][1], "items": "results"}
                  for name in names]
        config = {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "warning",
                  "cache": {"directory": os.path.join(workdir, "cache"), "maxBytes": 268435456}, "routes": routes}
        proxy = benchlib.start_pageproxy(args.binary, config, workdir)
        for route in routes:
            pages = truth(origin, ROUTES[route["name"]][0], route["pagination"])
            total = sum(len(items) for _, items in pages)
            for _ in range(args.count):
                window = {"offset": rng.randrange(0, total + 30), "limit": rng.randrange(1, 61)}
                if rng.random() < 0.2:
                    window["max_items"] = rng.randrange(1, 30)
                case = {"window": window, "route": route, "truth": {"compact": True}, "query": windows.query(window),
                        "count_is_not_items": "hide" in route["name"]}
                status, headers, body, _ = proxy_get(port, route["name"], False, case["query"])
                asked += 1
                problem = windows.check(pages, case, status, headers, body, False, compare)
                if problem:
                    failures += 1
                    print(f"FAIL /{route['name']}?{case['query']}  ({total} items, {len(pages)} pages): {problem}",
                          flush=True)
            # A client that scrolls: `rel="next"` followed from the first window must give the list once, in order.
            for size in (50, 13):
                seen, link, windows_asked = [], f"{route['name']}?_offset=0&_limit={size}", 0
                while link and windows_asked < 100:
                    status, headers, body, _ = proxy_get(port, link, False)
                    windows_asked, asked = windows_asked + 1, asked + 1
                    seen += json.loads(body) if status == 200 else [{"status": status}]
                    nexts = windows.links({k.lower(): v for k, v in headers.items()}).get("next")
                    link = f"{route['name']}?" + "&".join(f"{k}={v}" for k, v in nexts.items()) if nexts else None
                want = [item for _, items in pages for item in items]
                if seen != want:
                    failures += 1
                    ids = [item.get("id") for item in seen]
                    print(f"FAIL scroll /{route['name']}?_offset=0&_limit={size} by rel=next: {windows_asked} windows, "
                          f"{len(seen)} items ({len(ids) - len(set(ids))} repeated), the list holds {total}", flush=True)
            print(f"done {route['name']}: {total} items in {len(pages)} pages", flush=True)
    finally:
        if proxy:
            benchlib.stop(proxy, "PageProxy")
        benchlib.stop(mock, "mock")
        subprocess.run(["rm", "-rf", workdir])
    print(f"{asked - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
