"""Replays recorded Reddit listing traffic on loopback, with Reddit's own headers and bodies, exactly as recorded but
for `Date` (the current time) and its origin (`https://oauth.reddit.com` becomes this server's).

    python reddit_replay.py PORT CASSETTE_DIR

The recordings are PRAW's test cassettes (tests/integration/cassettes/*.json in the praw sdist from PyPI, which the
harness downloads; they are not copied into this repository): Betamax JSON, recorded against oauth.reddit.com.
A Reddit listing is `{"kind": "Listing", "data": {"after", "before", "children": [{"kind": "t1", "data": {…}}, …],
"dist", "modhash"}}`: the items two objects deep (`data.children`), the cursor beside them (`data.after`, the last
item's fullname such as `t1_ct5snit`, `null` on the last page), sent back as `?after=`. No total, no link, no
`has_more`. `?limit=` above 100 is read as 100 (PRAW asks 1024 and gets 100); `raw_json=1` asks for unescaped text.
`cache-control: max-age=0, must-revalidate`, no ETag. Replayed:

- `TestListingGenerator.test_exhaust_items`: /user/spez/?sort=top&t=all, 11 pages, 1,001 items, the last page one
  item with `after: null` (2016; no `dist`).
- `TestListingGenerator.test_exhaust_items_with_before`: the same listing with `before=3cxedn` in every request,
  16 pages, 1,523 items (2018; `dist` is the page's item count).
- `TestLiveThread.test_updates`: /live/ukaeu1ik4sw5, two full pages of 100 whose second still names an `after`, then
  an empty page with `after: null` (items are `LiveUpdate`s, cursors `LiveUpdate_<uuid>`).

`limit` values of 100 and more are one key (Reddit serves at most 100); an unrecorded URL is answered 404 with
Reddit's `{"message": "Not Found", "error": 404}`.
"""
import base64, email.utils, gzip, json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

RECORDINGS = ["TestListingGenerator.test_exhaust_items.json", "TestListingGenerator.test_exhaust_items_with_before.json",
              "TestLiveThread.test_updates.json"]
RECORDED_ORIGIN = "https://oauth.reddit.com"
DROPPED = {"transfer-encoding", "content-length", "connection", "content-encoding", "date", "keep-alive", "set-cookie"}
MAX_LIMIT = 100  # Reddit's cap on ?limit=


def key(target):
    parts = urlsplit(target)
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name == "limit" and value.isdigit() and int(value) >= MAX_LIMIT:
            value = str(MAX_LIMIT)
        query.append((name, value))
    return parts.path, tuple(sorted(query))


def body_of(response):
    body = response["body"]
    data = base64.b64decode(body["base64_string"]) if "base64_string" in body else body.get("string", "").encode()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def load(directory):
    responses = {}
    for name in RECORDINGS:
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            cassette = json.load(f)
        for interaction in cassette["interactions"]:
            request, response = interaction["request"], interaction["response"]
            if request["method"] != "GET" or not request["uri"].startswith(RECORDED_ORIGIN):
                continue
            headers = [(name, value) for name, values in response["headers"].items() for value in values]
            responses.setdefault(key(request["uri"]), (response["status"]["code"], headers, body_of(response)))
    return responses


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorded, origin = {}, ""

    def log_message(self, *args):
        pass

    def send(self, status, headers, body):
        data = body.replace(RECORDED_ORIGIN.encode(), self.origin.encode())
        self.send_response_only(status)
        self.send_header("Date", email.utils.formatdate(usegmt=True))
        for name, value in headers:
            if name.lower() not in DROPPED:
                self.send_header(name, value.replace(RECORDED_ORIGIN, self.origin))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        found = self.recorded.get(key(self.path))
        if found:
            return self.send(*found)
        self.send(404, [("Content-Type", "application/json; charset=UTF-8")], b'{"message": "Not Found", "error": 404}')

    do_HEAD = do_GET


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    Handler.recorded = load(directory)
    Handler.origin = f"http://127.0.0.1:{port}"
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
