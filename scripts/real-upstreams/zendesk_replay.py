"""Replays recorded Zendesk Support API traffic (cursor pagination) on loopback, with Zendesk's own headers and
bodies, exactly as recorded but for `Date` (the current time) and its origins (`https://<subdomain>.zendesk.com`
becomes this server's).

    python zendesk_replay.py PORT CASSETTE_DIR

The recordings are zenpy's Betamax cassettes (tests/test_api/betamax/*.json in zenpy's repository, facetoe/zenpy
on GitHub). zenpy is GPL-3.0 and its sdist on PyPI has no tests, so they are neither downloaded by the harness nor
copied into this repository: copy them into scripts/real-upstreams/.recordings/zenpy-cassettes/ from a clone of
zenpy by hand; without them run.py skips the Zendesk cases. Recorded in 2023 against a live Zendesk account:

`GET /api/v2/groups.json?page[size]=1` (brackets sent percent-encoded) answers compact JSON
`{"groups": [1 group], "meta": {"has_more", "after_cursor", "before_cursor"}, "links": {"prev", "next"}}`: the next
page is `links.next` (an absolute URL with `page[after]=<cursor>&page[size]=1`) or `meta.after_cursor` sent back as
`page[after]`, and **the last page still names both, with `"has_more": false`** (Zendesk's clients stop on
`has_more`); a page asked past it is empty with nulls (`{"activities":[],"actors":[],"users":[],"meta":{"has_more":
false,"after_cursor":null,"before_cursor":null},"links":{"prev":null,"next":null}}`, recorded for activities).
The recorded request's host (`d3v-zenpydev`) is not the one its links name (`z3n-jteitelbaum`). Activities come with
side-loaded `actors` and `users` arrays beside the items. `cache-control: max-age=0, private, must-revalidate`, a
weak `ETag`, `x-rate-limit`/`x-rate-limit-remaining`, `rate-limit-reset`. Replayed: groups (9 pages of 1; and
`page[size]=100`, one page of 9 that says `has_more: false` and links on), macros (7 of 1), tags (3 of 1),
activities (3 of 1, then its recorded empty page).

A `page[after]` that was not recorded (the page after a last page) is answered as that recorded empty page, with the
list's own key (`{"groups":[],…}`); any other unrecorded URL 404 with Zendesk's `{"error":"InvalidEndpoint",…}`.
"""
import base64, email.utils, gzip, json, os, re, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

RECORDINGS = ["TestGroupCreateUpdateDelete.test_pagination.json", "TestMacrosCreateUpdateDelete.test_pagination.json",
              "TestTags.test_pagination.json", "TestActivities.test_pagination.json"]
RECORDED_ORIGIN = re.compile(rb"https://[a-z0-9-]+\.zendesk\.com")
DROPPED = {"transfer-encoding", "content-length", "connection", "content-encoding", "date", "keep-alive", "set-cookie",
           "report-to", "nel"}
PAST_THE_END = '{{"{name}":[],"meta":{{"has_more":false,"after_cursor":null,"before_cursor":null}},' \
               '"links":{{"prev":null,"next":null}}}}'


def key(target):
    parts = urlsplit(target)
    return parts.path, tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))


def body_of(response):
    body = response["body"]
    data = base64.b64decode(body["base64_string"]) if "base64_string" in body else body.get("string", "").encode()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def load(directory):
    responses, headers_of = {}, {}
    for name in RECORDINGS:
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            cassette = json.load(f)
        for interaction in cassette["http_interactions"]:
            request, response = interaction["request"], interaction["response"]
            if request["method"] != "GET":
                continue
            headers = [(name, value) for name, values in response["headers"].items() for value in values]
            path = urlsplit(request["uri"]).path
            responses.setdefault(key(request["uri"]), (response["status"]["code"], headers, body_of(response)))
            headers_of.setdefault(path, headers)
    return responses, headers_of


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorded, headers_of, origin = {}, {}, ""

    def log_message(self, *args):
        pass

    def send(self, status, headers, body):
        data = RECORDED_ORIGIN.sub(self.origin.encode(), body)
        self.send_response_only(status)
        self.send_header("Date", email.utils.formatdate(usegmt=True))
        for name, value in headers:
            if name.lower() not in DROPPED:
                self.send_header(name, RECORDED_ORIGIN.sub(self.origin.encode(), value.encode()).decode())
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        found = self.recorded.get(key(self.path))
        if found:
            return self.send(*found)
        path, query = key(self.path)
        listed = re.fullmatch(r"/api/v2/(\w+)\.json", path)
        if listed and path in self.headers_of and any(name == "page[after]" for name, _ in query):
            body = PAST_THE_END.format(name=listed.group(1))
            if listed.group(1) == "activities":  # its side-loads, as recorded
                body = body.replace('"activities":[],', '"activities":[],"actors":[],"users":[],')
            headers = [(name, value) for name, value in self.headers_of[path] if name.lower() != "etag"]
            return self.send(200, headers, body.encode())
        self.send(404, [("Content-Type", "application/json; charset=utf-8")],
                  b'{"error":"InvalidEndpoint","description":"Not found"}')

    do_HEAD = do_GET


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    Handler.recorded, Handler.headers_of = load(directory)
    Handler.origin = f"http://127.0.0.1:{port}"
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
