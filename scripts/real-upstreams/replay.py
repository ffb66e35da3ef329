"""What the replays of recorded traffic share (mastodon_replay.py, reddit_replay.py, zendesk_replay.py,
notion_replay.py): the lookup key of a request, a recorded body, and a handler that serves a recorded answer with
its own headers, the current `Date`, and the recorded origin rewritten to the replay's.

    python <name>_replay.py PORT RECORDINGS_DIR
"""
import base64, email.utils, gzip, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

# Framing is the replay's own; a recorded `Date` (years old) would make every cached page stale on arrival.
DROPPED = {"transfer-encoding", "content-length", "connection", "content-encoding", "date", "keep-alive"}


def key(target):
    """A request's path and its query as sorted pairs: the order of the parameters does not matter."""
    parts = urlsplit(target)
    return parts.path, tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))


def betamax_body(response):
    """A Betamax cassette's response body as bytes (base64 and gzip as recorded, or a string)."""
    body = response["body"]
    data = base64.b64decode(body["base64_string"]) if "base64_string" in body else body.get("string", "").encode()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def vcr_body(response):
    """A vcrpy cassette's response body (a string)."""
    return response["body"]["string"]


def load_cassettes(directory, names, read, interactions="interactions", body=betamax_body, keep=None, key_of=key):
    """{key: (status, headers, body)} of the GET requests the cassettes `names` in `directory` recorded (`read` parses
    one: json.load for Betamax, yaml.safe_load for vcrpy), the first answer of each URL; `keep(uri)` may leave some out."""
    responses = {}
    for name in names:
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            cassette = read(f)
        for interaction in cassette[interactions]:
            request, response = interaction["request"], interaction["response"]
            if request["method"] != "GET" or (keep and not keep(request["uri"])):
                continue
            headers = [(name, value) for name, values in response["headers"].items() for value in values]
            responses.setdefault(key_of(request["uri"]), (response["status"]["code"], headers, body(response)))
    return responses


class ReplayHandler(BaseHTTPRequestHandler):
    """Answers `recorded[lookup(path)]`, else `unrecorded(path)`; a subclass sets `recorded_origin` (a string, or a
    compiled bytes pattern) and may add names to `dropped`."""
    protocol_version = "HTTP/1.1"
    recorded, origin, recorded_origin, dropped = {}, "", "", DROPPED

    def log_message(self, *args):
        pass

    def rewrite(self, data):
        if isinstance(self.recorded_origin, str):
            return data.replace(self.recorded_origin.encode(), self.origin.encode())
        return self.recorded_origin.sub(self.origin.encode(), data)

    def send(self, status, headers, body):
        data = self.rewrite(body if isinstance(body, bytes) else body.encode())
        self.send_response_only(status)
        self.send_header("Date", email.utils.formatdate(usegmt=True))
        for name, value in headers:
            if name.lower() not in self.dropped:
                self.send_header(name, self.rewrite(value.encode()).decode())
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def lookup(self, path):
        return key(path)

    def unrecorded(self, path):
        raise NotImplementedError

    def do_GET(self):
        found = self.recorded.get(self.lookup(self.path))
        self.send(*(found or self.unrecorded(self.path)))

    do_HEAD = do_GET


def serve(handler, load):
    """`python <replay>.py PORT RECORDINGS_DIR`: `load(RECORDINGS_DIR)` becomes `handler.recorded`."""
    port, directory = int(sys.argv[1]), sys.argv[2]
    handler.recorded = load(directory)
    handler.origin = f"http://127.0.0.1:{port}"
    ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()
