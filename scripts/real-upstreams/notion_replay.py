"""Replays recorded Notion API traffic on loopback: the bodies exactly as recorded, `https://api.notion.com` becoming
this server's origin.

    python notion_replay.py PORT CASSETTE_DIR

The recordings are notion-sdk-py's vcrpy cassettes (tests/cassettes/*.yaml in its repository, ramnes/notion-sdk-py
on GitHub, MIT; its sdist on PyPI has no tests, so the harness cannot download them): copy
`test_iterate_paginated_api.yaml` into scripts/real-upstreams/.recordings/notion-cassettes/ from a clone by hand;
without it run.py skips the Notion cases. Recorded in 2026 against api.notion.com (the cassette kept only
`Content-Type` of the response headers): `GET /v1/blocks/<id>/children?page_size=2` answers compact JSON
`{"object": "list", "results": [2 blocks], "next_cursor": "<block id>", "has_more": true, "type": "block",
"block": {}, "request_id": …}`; the cursor goes back as `?start_cursor=` (not `cursor`), and the last page says
`"next_cursor": null, "has_more": false`. Three pages, 5 blocks. The test then deleted the blocks and asked the first
page again (empty): only the first answer of a URL is replayed. An unrecorded URL is answered 400 with Notion's
error shape (`{"object": "error", "status": 400, "code": "validation_error", …}`); what Notion really answers to a
parameter it does not know was not recorded.
"""
import email.utils, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import yaml

RECORDINGS = ["test_iterate_paginated_api.yaml"]
RECORDED_ORIGIN = "https://api.notion.com"
DROPPED = {"transfer-encoding", "content-length", "connection", "content-encoding", "date", "keep-alive"}
UNRECORDED = ('{"object":"error","status":400,"code":"validation_error","message":"not recorded by the replay: '
              'notion_replay.py answers only the URLs notion-sdk-py recorded"}')


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
            if request["method"] != "GET":
                continue
            headers = [(name, value) for name, values in response["headers"].items() for value in values]
            responses.setdefault(key(request["uri"]), (response["status"]["code"], headers, response["body"]["string"]))
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
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        found = self.recorded.get(key(self.path))
        if found:
            return self.send(*found)
        self.send(400, [("Content-Type", "application/json; charset=utf-8")], UNRECORDED)

    do_HEAD = do_GET


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    Handler.recorded = load(directory)
    Handler.origin = f"http://127.0.0.1:{port}"
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
