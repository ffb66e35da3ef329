"""real18: what a window, a cap or a field selection asked of PageProxy must answer, from the truth (the direct walk).

A case with a "window" ({"offset", "limit", "max_items", "max_pages", "fields"}, each optional) and the "query" that asks
it. The truth's items are sliced as README's "Asking for less" says: `_max_pages` keeps the first pages of the walk
(from the first page, or, on an offset or page-number route that jumps to the window, from the page it jumps to;
where the server caps the size under a jump, the answer must be the window's first items, Truncated when short),
`_offset`/`_limit` slice the items, `_max_items` caps the window's own items, `_fields` keeps the members named.
Then the answer's headers: `PageProxy-Total` true where sent (and sent where the route names the total), a window's
`Link` rel="next" at the item after the last one held while items follow (absent, under a stated total, after a
short merged window), rel="prev" unless the window starts at 0, `PageProxy-Items`, and `PageProxy-Truncated` exactly
when a cap held back items the answer could hold (a window's `_max_items` narrows the window: only `_max_pages`
truncates one).
"""
import json, re
from urllib.parse import parse_qsl, urlsplit


def expected(pages, window, capped=True):
    """The items the answer must hold; `capped` False leaves `_max_items`/`_max_pages` out (what it could hold)."""
    if capped and window.get("max_pages"):
        pages = pages[:window["max_pages"]]
    items = [item for _, page in pages for item in page]
    offset, limit = window.get("offset", 0), window.get("limit")
    items = items[offset:offset + limit if limit is not None else None]
    if capped and window.get("max_items"):
        items = items[:window["max_items"]]
    if window.get("fields"):
        items = [project(item, window["fields"]) for item in items]
    return items


def project(item, fields):
    """README "Fields": members named (dotted paths nest), missing ones left out, a parent with none left out;
    an item that is not an object kept whole."""
    if not isinstance(item, dict):
        return item
    kept = {}
    for field in fields:
        head, _, rest = field.partition(".")
        if head not in item:
            continue
        if not rest:
            kept[head] = item[head]
        elif isinstance(item[head], dict):
            inner = project(item[head], [rest])
            if inner:
                kept.setdefault(head, {}).update(inner)
    return kept


def links(headers):
    """{rel: {query parameter: value}} of the answer's `Link` field (a target may hold commas: `_fields=id,note`)."""
    found = {}
    for target, params in re.findall(r'<([^>]*)>\s*((?:;[^,<]*)*)', headers.get("link", "")):
        rel = re.search(r'rel="?([^";]+)"?', params)
        found[rel.group(1) if rel else None] = dict(parse_qsl(urlsplit(target).query, keep_blank_values=True))
    return found


def jump_pages(pages, case):
    """How many of the truth's pages a `_max_pages` window jumps over uncounted: an offset or page-number route whose
    size the server serves jumps to the page that holds the window's first item (the pages before it are not fetched,
    not counted); 0 for any other, which walks from the first page and counts the pages it passes. None where the
    server serves less than the route asks (PageProxy jumps by the route's size, then steps by the served one)."""
    route, window = case["route"]["pagination"], case["window"]
    size = route.get("limit") or route.get("pageSize")
    if route["scheme"] not in ("offset", "page-number") or not window.get("offset"):
        return 0
    return window["offset"] // size if size and pages and len(pages[0][1]) == size else None


def check(pages, case, status, headers, body, ndjson, compare):
    """None when the answer is right, else why (the first thing wrong)."""
    window = case["window"]
    if window.get("max_pages"):
        skipped = jump_pages(pages, case)
        if skipped is None:
            # A capped server under a jump: the answer must be the window's first items, Truncated when short.
            return check_prefix(pages, case, status, headers, body, ndjson, compare)
        if skipped:
            items = [item for _, page in pages for item in page]
            last = sum(len(page) for _, page in pages[:skipped + window["max_pages"]])
            uncut = {k: v for k, v in window.items() if k != "max_pages"}
            return compare_items(pages, case, expected([(b"", items[:last])], uncut), status, headers, body, ndjson,
                                 compare)
    want = expected(pages, window)
    return compare_items(pages, case, want, status, headers, body, ndjson, compare)


def check_prefix(pages, case, status, headers, body, ndjson, compare):
    """The window's first items (any number), `PageProxy-Truncated` on a merged answer that is short, and then a
    `Link` `rel="next"` at the item after its last (harness21: the links were not checked here, so real20's F4 passed
    on the capped views; an NDJSON head of a scheme that counts no pages may leave it out, as in compare_items)."""
    window = {k: v for k, v in case["window"].items() if k != "max_pages"}
    could = expected(pages, window)
    if status != 200:
        return compare([(b"", could)], status, headers, body, ndjson)
    got = [json.loads(line) for line in body.split(b"\n") if line] if ndjson else json.loads(body)
    if got != could[:len(got)]:
        return f"{len(got)} items, not the window's first {len(got)}"
    truncated = {k.lower(): v for k, v in headers.items()}.get("pageproxy-truncated") == "true"
    if len(got) < len(could) and not truncated and not ndjson:
        return f"{len(got)} of the window's {len(could)} items, no PageProxy-Truncated"
    if got and len(got) < len(could):
        # (None held: a link on would ask the same again, e.g. a capped page-number window `_max_pages` cannot reach.)
        rels, end = links({k.lower(): v for k, v in headers.items()}), window.get("offset", 0) + len(got)
        if "next" not in rels and not (ndjson and head_may_leave_out_next(case)):
            return f"no Link rel=\"next\", {len(could) - len(got)} items of the window follow item {end}"
        if "next" in rels and rels["next"].get("_offset") != str(end):
            return f"Link rel=\"next\" at _offset={rels['next'].get('_offset')}, the answer ends before {end}"
    return None


def compare_items(pages, case, want, status, headers, body, ndjson, compare):
    window = case["window"]
    sliced = [(b"".join(raw for raw, _ in pages), want)]
    problem = compare(sliced, status, headers, body, ndjson, case["truth"].get("compact", True) and not window.get("fields"))
    if problem:
        return problem
    headers = {name.lower(): value for name, value in headers.items()}
    total = len([item for _, page in pages for item in page])
    route = case["route"]["pagination"]
    states_total = bool(route.get("totalItemsPath") or route.get("totalItemsHeader"))
    said = headers.get("pageproxy-total")
    if case.get("count_is_not_items"):
        # An upstream whose count also counts items it hides (window_diff's mock_hide_every): no total is the truth.
        said, states_total = None, False
    if said is not None and said != str(total):
        return f"PageProxy-Total: {said}, the list holds {total}"
    if said is None and states_total and window.get("offset", 0) < total:
        # (A window past the end may have no page to read the total from: DRF's 404 past its last page.)
        return f"no PageProxy-Total (the route names the total, {total})"
    if not ndjson and headers.get("pageproxy-items") not in (None, str(len(want))):
        return f"PageProxy-Items: {headers.get('pageproxy-items')}, the answer holds {len(want)}"
    # A window's `_max_items` narrows the window (RequestedItems.cappedLimit, review18 N3): only `_max_pages` truncates it.
    is_window = "offset" in window or "limit" in window
    could = (expected(pages, {k: v for k, v in window.items() if k != "max_pages"}) if is_window
             else expected(pages, window, capped=False))
    truncated = headers.get("pageproxy-truncated") == "true"
    if truncated and len(want) == len(could):
        return "PageProxy-Truncated: true, but no cap held back an item"
    if not truncated and len(want) < len(could) and not ndjson:
        return f"no PageProxy-Truncated, but a cap held back {len(could) - len(want)} items"
    if not is_window:
        return None
    offset, limit = window.get("offset", 0), window.get("limit")
    rels = links(headers)
    end = offset + len(want)
    if "next" in rels:
        # An NDJSON head leaves before the walk ends: it may link on at the window's own end (README), but not past
        # what a `_max_pages` cut sent (real18 F6: a scroll that follows it skips the items between).
        nominal = offset + limit if ndjson and limit is not None and not window.get("max_pages") else end
        if rels["next"].get("_offset") not in (str(end), str(nominal)):
            return f"Link rel=\"next\" at _offset={rels['next'].get('_offset')}, the answer ends before {end}"
        if limit is not None and rels["next"].get("_limit") != str(limit):
            return f"Link rel=\"next\" with _limit={rels['next'].get('_limit')}, the window asked {limit}"
    elif end < total and not (window.get("max_pages") and not want) and not (ndjson and head_may_leave_out_next(case)):
        return f"no Link rel=\"next\", {total - end} items follow item {end}"
    if "next" in rels and states_total and said is not None and not ndjson and end >= total and len(want) < (limit or total):
        return f"Link rel=\"next\" (_offset={end}) past the stated total {total} after a short window"
    if (offset > 0) != ("prev" in rels):
        return f"Link rel=\"prev\" {'missing' if offset > 0 else 'on a window at 0'}"
    return None


def head_may_leave_out_next(case):
    """fix31, README "Asking for less": an NDJSON head under a `_max_pages` that may cut the window (a scheme that
    counts no pages: links, cursors, auto) has no `rel="next"`; the walk's own is a `TE: trailers` trailer, which urllib
    does not read. (An offset or page-number window counts its pages: its head links on.)"""
    return bool(case["window"].get("max_pages")) and case["route"]["pagination"]["scheme"] not in ("offset", "page-number")


def query(window):
    """The controls in a request's query, in README's spelling."""
    names = [("offset", "_offset"), ("limit", "_limit"), ("max_items", "_max_items"), ("max_pages", "_max_pages")]
    parts = [f"{control}={window[key]}" for key, control in names if key in window]
    if window.get("fields"):
        parts.append("_fields=" + ",".join(window["fields"]))
    return "&".join(parts)


# The windows each route is asked (names as they appear in case names), over a list of 1000 items.
STANDARD = [
    ("o0-l20", {"offset": 0, "limit": 20}),            # the start
    ("o250-l30", {"offset": 250, "limit": 30}),        # the middle, inside a page of 100
    ("o90-l20", {"offset": 90, "limit": 20}),          # across a page boundary (of 100; of 7 too)
    ("o195-l110", {"offset": 195, "limit": 110}),      # across three pages
    ("o980-l20", {"offset": 980, "limit": 20}),        # ends at the end
    ("o990-l20", {"offset": 990, "limit": 20}),        # runs past the end
    ("o1000-l10", {"offset": 1000, "limit": 10}),      # starts at the end
    ("o1500-l10", {"offset": 1500, "limit": 10}),      # past the end
    ("o950", {"offset": 950}),                         # _offset alone
    ("l5", {"limit": 5}),                              # _limit alone
    ("mi50", {"max_items": 50}),                       # _max_items below a page
    ("mi100", {"max_items": 100}),                     # at a page
    ("mi150", {"max_items": 150}),                     # above a page
    ("mi1000", {"max_items": 1000}),                   # the whole list: not truncated
    ("mp2", {"max_pages": 2}),
    ("o120-l30-mi10", {"offset": 120, "limit": 30, "max_items": 10}),
    ("o150-l100-mp2", {"offset": 150, "limit": 100, "max_pages": 2}),  # _max_pages counts the pages a window skips
]
SHORT = [name for name in ["o0-l20", "o90-l20", "o990-l20", "o1500-l10", "mi150", "mp2", "o150-l100-mp2"]]

# real20: the windows asked of the replayed lists, which are short (GitHub's 9 comments a page of 3, its 10 pages of
# artifacts, Mastodon's pages of 10, Zendesk's and Notion's pages of 1 and 2): the same questions scaled down.
SMALL = [
    ("o0-l2", {"offset": 0, "limit": 2}),               # the start
    ("o1-l3", {"offset": 1, "limit": 3}),               # across a page boundary (of 1, 2, 3)
    ("o3", {"offset": 3}),                              # _offset alone
    ("l1", {"limit": 1}),                               # _limit alone
    ("o4-l100", {"offset": 4, "limit": 100}),           # runs past the end
    ("o500-l5", {"offset": 500, "limit": 5}),           # past the end
    ("mi1", {"max_items": 1}),
    ("mi4", {"max_items": 4}),
    ("mp1", {"max_pages": 1}),
    ("mp2", {"max_pages": 2}),
    ("o2-l4-mi2", {"offset": 2, "limit": 4, "max_items": 2}),
    ("o2-l6-mp2", {"offset": 2, "limit": 6, "max_pages": 2}),
]
