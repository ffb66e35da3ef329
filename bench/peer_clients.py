"""The peers PageProxy is compared with, run by bench/peers.py inside bench/.venv (not meant to be run by hand).

Reads one JSON request per line on stdin, runs one timed fetch of every item, answers one JSON line on stdout:
    {"contender": "requests"|"dlt"|"aiohttp", "scheme": "link"|"cursor", "upstream": "http://127.0.0.1:P",
     "total": N, "page_size": 20, "run": "unique-id", "concurrency": 8}
 -> {"ok": true, "seconds": s, "items": n, "first_id": 1, "last_id": N, "pages": p}
Every contender starts from scratch (new session, new connections) as a user's script would, and ends holding a
Python list of every item (parsed JSON), like the PageProxy contender in peers.py.
"""
import asyncio, json, sys, time, traceback
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import aiohttp
import requests
from dlt.sources.helpers.rest_client import RESTClient
from dlt.sources.helpers.rest_client.paginators import HeaderLinkPaginator, JSONResponseCursorPaginator

TIMEOUT = 30  # seconds per HTTP request


def params(req):
    # `bench_run` is unknown to the mock (it ignores it, and the Link header carries it along): it keeps every
    # URL unique, so no cache anywhere can answer a cold run.
    p = {"mock_total": req["total"], "bench_run": req["run"]}
    if req["scheme"] == "link":
        p["per_page"] = req["page_size"]
    else:
        p["limit"] = req["page_size"]
    return p


def path(req):
    return "/github/items" if req["scheme"] == "link" else "/slack/items"


# --- requests: the loop a user writes by hand -------------------------------------------------------------------
def run_requests(req):
    items, pages = [], 0
    with requests.Session() as s:
        if req["scheme"] == "link":
            url, p = req["upstream"] + path(req), params(req)
            while url:
                r = s.get(url, params=p, timeout=TIMEOUT)
                r.raise_for_status()
                items.extend(r.json())
                pages += 1
                url, p = r.links.get("next", {}).get("url"), None
        else:
            p = params(req)
            while True:
                r = s.get(req["upstream"] + path(req), params=p, timeout=TIMEOUT)
                r.raise_for_status()
                body = r.json()
                items.extend(body["members"])
                pages += 1
                cursor = body.get("response_metadata", {}).get("next_cursor")
                if not cursor:
                    break
                p = dict(params(req), cursor=cursor)
    return items, pages


# --- dlt RESTClient with its matching paginator ---------------------------------------------------------------
def run_dlt(req):
    items, pages = [], 0
    if req["scheme"] == "link":
        client = RESTClient(base_url=req["upstream"], paginator=HeaderLinkPaginator())
        iterator = client.paginate(path(req), params=params(req))
    else:
        client = RESTClient(base_url=req["upstream"],
                            paginator=JSONResponseCursorPaginator(cursor_path="response_metadata.next_cursor",
                                                                  cursor_param="cursor"),
                            data_selector="members")
        iterator = client.paginate(path(req), params=params(req))
    for page in iterator:
        items.extend(page)
        pages += 1
    client.session.close()
    return items, pages


# --- asyncio + aiohttp: read the total from Link rel="last", fetch the rest `concurrency` at a time ------------
async def _aiohttp(req):
    concurrency = req["concurrency"]
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as s:
        if req["scheme"] == "link":
            first_url = req["upstream"] + path(req) + "?" + urlencode(params(req))
            async with s.get(first_url) as r:
                r.raise_for_status()
                first = await r.json()
                last = r.links.get("last")
            if last is None:
                return first, 1
            last_url = urlsplit(str(last["url"]))
            query = parse_qs(last_url.query)
            last_page = int(query["page"][0])

            def page_url(n):
                q = dict(query, page=[str(n)])
                return urlunsplit(last_url._replace(query=urlencode(q, doseq=True)))

            sem = asyncio.Semaphore(concurrency)

            async def fetch(n):
                async with sem:
                    async with s.get(page_url(n)) as r:
                        r.raise_for_status()
                        return await r.json()

            rest = await asyncio.gather(*(fetch(n) for n in range(2, last_page + 1)))
            items = list(first)
            for page in rest:
                items.extend(page)
            return items, last_page
        # A cursor names only the next page: sequential by nature.
        items, pages, p = [], 0, params(req)
        while True:
            async with s.get(req["upstream"] + path(req), params=p) as r:
                r.raise_for_status()
                body = await r.json()
            items.extend(body["members"])
            pages += 1
            cursor = body.get("response_metadata", {}).get("next_cursor")
            if not cursor:
                return items, pages
            p = dict(params(req), cursor=cursor)


def run_aiohttp(req):
    return asyncio.run(_aiohttp(req))


CONTENDERS = {"requests": run_requests, "dlt": run_dlt, "aiohttp": run_aiohttp}


def main():
    for line in sys.stdin:
        req = json.loads(line)
        try:
            start = time.perf_counter()
            items, pages = CONTENDERS[req["contender"]](req)
            seconds = time.perf_counter() - start
            answer = {"ok": True, "seconds": seconds, "items": len(items), "pages": pages,
                      "first_id": items[0]["id"] if items else None, "last_id": items[-1]["id"] if items else None}
        except Exception as e:  # reported to the driver, which fails the run
            answer = {"ok": False, "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
