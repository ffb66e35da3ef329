"""Replays recorded Mastodon traffic on loopback, with Mastodon's own headers and bodies, exactly as recorded but for
`Date` (the current time) and its origin (`http://localhost:3000` becomes this server's).

    python mastodon_replay.py PORT CASSETTE_DIR

The recordings are Mastodon.py's test cassettes (tests/cassettes/*.yaml in the Mastodon.py sdist from PyPI, which
the harness downloads; they are not copied into this repository): vcrpy YAML, recorded against a Mastodon
instance on localhost:3000. The one replayed walks a hashtag timeline, 10 statuses a page
(`test_fetch_remaining.yaml`, `/api/v1/timelines/tag/<tag>?limit=10`): a bare array of statuses (compact JSON, non-ASCII
written raw); `Link: <…?limit=10&max_id=<the page's oldest id>>; rel="next", <…?limit=10&min_id=<its newest id>>;
rel="prev"`, keysets named by the page's own items; **the last full page still links on, to a page that is `[]`**
with no `Link`; `Cache-Control: private, no-store`; a weak `ETag`; `X-RateLimit-Reset` as an ISO 8601 time, not
seconds. An unrecorded URL is answered 404 with Mastodon's `{"error":"Record not found"}`.
"""
import email.utils, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import yaml

RECORDINGS = ["test_fetch_remaining.yaml"]
RECORDED_ORIGIN = "http://localhost:3000"
DROPPED = {"transfer-encoding", "content-length", "connection", "content-encoding", "date", "keep-alive"}


def key(target):
    parts = urlsplit(target)
    return parts.path, tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))


def load(directory):
    responses = {}
    for name in RECORDINGS:
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            cassette = yaml.safe_load(f)
        for interaction in cassette["interactions"]:
            request, response = interaction["request"], interaction["response"]
            if request["method"] != "GET" or "/timelines/" not in request["uri"]:
                continue
            headers = [(name, value) for name, values in response["headers"].items() for value in values]
            body = response["body"]["string"]
            responses.setdefault(key(request["uri"]), (response["status"]["code"], headers, body))
    return responses


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorded, origin = {}, ""

    def log_message(self, *args):
        pass

    def send(self, status, headers, body):
        data = body.replace(RECORDED_ORIGIN, self.origin).encode()
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
        self.send(404, [("Content-Type", "application/json; charset=utf-8")], '{"error":"Record not found"}')

    do_HEAD = do_GET


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    Handler.recorded = load(directory)
    Handler.origin = f"http://127.0.0.1:{port}"
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
