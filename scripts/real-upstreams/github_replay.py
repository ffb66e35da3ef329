"""Replays recorded api.github.com traffic on loopback, with GitHub's own headers (Link to /repositories/<id>/…,
X-RateLimit-*, ETag, Cache-Control) and bodies, exactly as recorded but for `Date`, which is the current time as
GitHub's is.

    python github_replay.py PORT REPLAY_DIR

The recordings are PyGithub's test fixtures (tests/ReplayData/*.txt in the PyGithub sdist from PyPI, which the
harness downloads; they are not copied into this repository). Each record is 11 lines: scheme, verb, host, port,
path?query, request headers, request body, status, response headers (a Python list of pairs), response body, blank.

Like GitHub, /repos/<owner>/<name>/… and /repositories/<id>/… name the same resource, and page=1 is the
first page. `https://api.github.com` in
headers and bodies becomes this server's address. GET /__requests lists the paths asked for (POST /__reset clears).
An unrecorded URL is answered 404 with GitHub's error body.
"""
import ast, email.utils, json, os, re, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

RECORDINGS = [
    "PaginatedList.testCustomPerPageIteration.txt",  # issue comments, 3 pages, root array
    "Artifact.testGetArtifactsFromRepoWithName.txt",  # {"total_count","artifacts"}, 10 pages
    "PaginatedList.testSearchWithCompleteResults.txt",  # {"total_count","incomplete_results","items"}, 2 pages
]
# The recorded `Date` (years old) is replaced by the current one, as api.github.com sends it: kept, it made every
# cached page stale on arrival (freshness is reckoned from `Date`, RFC 9111 §4.2.3), so each cached request
# revalidated every page, which real GitHub traffic never shows within its `max-age=60`.
DROPPED = {"transfer-encoding", "content-length", "connection", "content-encoding", "status", "keep-alive", "date"}


def key(target):
    parts = urlsplit(target)
    return parts.path, tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))


def load(directory):
    responses, aliases = {}, {}
    for name in RECORDINGS:
        lines = open(os.path.join(directory, name), encoding="utf-8").read().split("\n")
        i = 0
        while i + 9 < len(lines):
            if lines[i] in ("https", "http") and lines[i + 1] == "GET" and lines[i + 2] == "api.github.com":
                target, status, headers, body = lines[i + 4], int(lines[i + 7]), ast.literal_eval(lines[i + 8]), lines[i + 9]
                responses.setdefault(key(target), (status, headers, body))
                link = next((v for k, v in headers if k.lower() == "link"), "")
                owner = re.match(r"/repos/([^/]+/[^/]+)/", target)
                ident = re.search(r"api\.github\.com/repositories/(\d+)/", link)
                if owner and ident:
                    aliases[f"/repos/{owner.group(1)}/"] = f"/repositories/{ident.group(1)}/"
                i += 11
            else:
                i += 1
    return responses, aliases


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    responses, aliases, origin = {}, {}, ""
    requested, lock = [], threading.Lock()

    def log_message(self, *args):
        pass

    def send(self, status, headers, body):
        data = body.replace("https://api.github.com", self.origin).encode()
        self.send_response_only(status)
        self.send_header("Date", email.utils.formatdate(usegmt=True))
        for name, value in headers:
            if name.lower() not in DROPPED:
                self.send_header(name, value.replace("https://api.github.com", self.origin))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_POST(self):
        with self.lock:
            self.requested.clear()
        self.send(200, [("Content-Type", "application/json")], "{}")

    def do_GET(self):
        if self.path == "/__requests":
            with self.lock:
                return self.send(200, [("Content-Type", "application/json")], json.dumps(self.requested))
        with self.lock:
            self.requested.append(self.path)
        path, query = key(self.path)
        candidates = [path]
        for repos, repositories in self.aliases.items():
            candidates += [path.replace(repos, repositories), path.replace(repositories, repos)]
        # GitHub answers page=1 as it answers no page parameter.
        queries = [query, tuple(pair for pair in query if pair != ("page", "1"))]
        for candidate in candidates:
            for variant in queries:
                if (candidate, variant) in self.responses:
                    return self.send(*self.responses[(candidate, variant)])
        self.send(404, [("Content-Type", "application/json; charset=utf-8")],
                  '{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}')

    do_HEAD = do_GET


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    Handler.responses, Handler.aliases = load(directory)
    Handler.origin = f"http://127.0.0.1:{port}"
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
