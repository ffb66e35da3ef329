"""A paginated upstream that writes each response's head and body in two writes, as Django's `runserver`
(wsgiref) does, and leaves Nagle's algorithm on (no TCP_NODELAY), as wsgiref does.

The pages are DRF PageNumberPagination's: GET /items/?page=N answers
{"count": T, "next": "<absolute URL of page N+1 or null>", "previous": null, "results": [...]}, and a page past
the end answers 404 {"detail": "Invalid page."}. Keep-alive HTTP/1.1 with Content-Length. Loopback only.

    python3 bench/split_write_upstream.py --port 8099 --items 42 --page-size 1
"""
import argparse, json, socket, socketserver, threading
from urllib.parse import urlsplit, parse_qs


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            line = self.rfile.readline(65537)
            if not line:
                return
            target = line.split(b" ")[1].decode() if len(line.split(b" ")) > 1 else "/"
            while True:
                header = self.rfile.readline(65537)
                if header in (b"\r\n", b"\n", b""):
                    break
            status, body = self.server.page(target)
            head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                    "Connection: keep-alive\r\n\r\n").encode()
            # Two writes, as wsgiref's: the head, then the body.
            self.wfile.write(head)
            self.wfile.flush()
            self.wfile.write(body)
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port, items, page_size):
        super().__init__(("127.0.0.1", port), Handler)
        self.items, self.page_size = items, page_size

    def page(self, target):
        parts = urlsplit(target)
        query = parse_qs(parts.query)
        number = int(query.get("page", ["1"])[0])
        pages = max(1, -(-self.items // self.page_size))
        if number < 1 or number > pages:
            return "404 Not Found", b'{"detail":"Invalid page."}'
        start = (number - 1) * self.page_size
        results = [{"id": i + 1, "name": f"item-{i + 1}"} for i in range(start, min(self.items, start + self.page_size))]
        host = f"http://127.0.0.1:{self.server_address[1]}"
        nxt = f"{host}{parts.path}?page={number + 1}" if number < pages else None
        return "200 OK", json.dumps({"count": self.items, "next": nxt, "previous": None, "results": results}).encode()


def serve(port, items, page_size):
    """Starts the server on a thread; returns it (call .shutdown() to stop)."""
    server = Server(port, items, page_size)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--items", type=int, default=42)
    parser.add_argument("--page-size", type=int, default=1)
    args = parser.parse_args()
    Server(args.port, args.items, args.page_size).serve_forever()
