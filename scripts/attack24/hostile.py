#!/usr/bin/env python3
"""attack20: a hostile upstream on loopback (standard library only).

Behaviour is taken from the path, so one PageProxy route reaches every variant and each variant has its own cache keys:

  /off/<N>/<cap>/<total>/<past>/<floor>/items?offset=&limit=
      offset list of N items {"id": i}.
      cap    : 0 = serve `limit`, k = serve min(limit, k), "ign" = ignore limit and serve 15,
               "hK" = ignore limit, cut K items, then hide every item whose id % 4 == 3 (a filter after the cut)
      total  : "none", "true", "+k" (N+k), "-k" (N-k)
      past   : "empty" (a page past the end is []), "last" (the list's last page, cut at multiples of the served size), "tail" (the last served-size items), "404"
      floor  : "no" or k = the offset is floored to a multiple of k (a page-based backend faking offsets)
  /auto/<kind>/items : adversarial first pages for scheme auto (see AUTO_KINDS)
  /stray/<kind>/items?page= : page-number list of 60 items, 10 a page; kind "408idle" = on an idle keep-alive
      connection send an unsolicited 408 and close after 0.3 s; "dup" = send each response twice.

Every response says Connection: keep-alive unless stated. Run: hostile.py PORT
"""
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

LOG = []
LOG_LOCK = threading.Lock()


def body_of(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def off_page(parts, q):
    n = int(parts[0]); cap = parts[1]; total = parts[2]; past = parts[3]; floor = parts[4]
    offset = int(q.get("offset", ["0"])[0]); limit = int(q.get("limit", ["10"])[0])
    if floor != "no":
        f = int(floor)
        offset = (offset // f) * f
    hide = False
    if cap == "ign":
        size = 15
    elif cap.startswith("h"):  # its own size, ignoring limit, then every 4th item (id % 4 == 3) filtered out
        size = int(cap[1:]); hide = True
    elif cap == "0":
        size = limit
    else:
        size = min(limit, int(cap))
    items = list(range(offset, min(n, offset + size)))
    status = 200
    if offset >= n:
        if past == "404":
            return 404, {"detail": "Invalid page."}
        if past == "tail":  # the last `size` items of the list, whatever the offset past its end
            items = list(range(max(0, n - size), n))
        if past == "last":
            last_start = max(0, ((n - 1) // size) * size)
            items = list(range(last_start, n))
    if hide:
        items = [i for i in items if i % 4 != 3]
    body = {"results": [{"id": i} for i in items]}
    if total == "true":
        body["count"] = n
    elif total.startswith("+") or total.startswith("-"):
        body["count"] = n + int(total)
    return status, body


AUTO_STATE = {}


def auto_page(kind, q, path_base):
    # Adversarial first pages for `auto`.
    if kind == "reddit_loop":  # data.after repeats the same cursor forever
        return 200, {"kind": "Listing", "data": {"after": "t3_same", "children": [{"kind": "t3", "data": {"id": "x%s" % q.get("after", ["0"])[0]}}]}}
    if kind == "reddit_cycle":  # a -> b -> a -> b
        a = q.get("after", [""])[0]
        nxt = {"": "A", "A": "B", "B": "A"}[a]
        return 200, {"kind": "Listing", "data": {"after": nxt, "children": [{"kind": "t3", "data": {"id": "c" + (a or "0")}}]}}
    if kind == "cursor_same_items":  # a new cursor each page, same items each page
        c = int(q.get("cursor", ["0"])[0] or 0)
        return 200, {"items": [{"id": 1}, {"id": 2}], "next_cursor": str(c + 1) if c < 50 else None}
    if kind == "notion_loop":
        return 200, {"object": "list", "results": [{"id": "n1"}], "next_cursor": "same", "has_more": True}
    if kind == "has_more_true_nothing":  # has_more true forever with empty data
        return 200, {"data": [], "has_more": True}
    if kind == "has_more_same_last":  # stripe-like, starting_after ignored
        return 200, {"data": [{"id": "s1"}, {"id": "s2"}], "has_more": True}
    if kind == "next_self":  # next link points to the same page
        return 200, {"results": [{"id": 1}], "next": "http://127.0.0.1:%d%s" % (PORT, path_base)}
    if kind == "next_cycle":  # next ?p=1 -> ?p=2 -> ?p=1
        p = int(q.get("p", ["1"])[0])
        nxt = 2 if p == 1 else 1
        return 200, {"results": [{"id": p}], "next": "%s?p=%d" % (path_base, nxt)}
    if kind == "zendesk_more_lie":  # has_more false on first page but links on; then more pages
        p = int(q.get("page", ["1"])[0])
        return 200, {"tickets": [{"id": p}], "users": [{"id": 99}], "meta": {"has_more": p < 3},
                     "links": {"next": "%s?page=%d" % (path_base, p + 1) if p < 3 else None}}
    if kind == "after_num_items":  # data.after present but children under another key
        return 200, {"data": {"after": "t3_x", "dist": 5, "things": [{"id": 1}]}}
    return 404, {"error": "kind"}


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, status, obj, extra=None, twice=False):
        b = body_of(obj)
        head = "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (status, len(b))
        for k, v in (extra or {}).items():
            head += "%s: %s\r\n" % (k, v)
        raw = head.encode() + b"\r\n" + b
        self.wfile.write(raw)
        if twice:
            self.wfile.write(raw)
        self.wfile.flush()

    def do_GET(self):
        u = urlsplit(self.path)
        q = parse_qs(u.query, keep_blank_values=True)
        parts = u.path.strip("/").split("/")
        with LOG_LOCK:
            LOG.append(self.path)
        try:
            if parts[0] == "off":
                st, b = off_page(parts[1:6], q)
                return self.send_json(st, b)
            if parts[0] == "auto":
                st, b = auto_page(parts[1], q, u.path)
                return self.send_json(st, b)
            if parts[0] == "echo":
                # page-number list of 60 items, 10 a page, each naming the credentials it was fetched with;
                # /echo/<ver>/items: <ver> read from /tmp/attack20/echo-version (a list changed upstream)
                p = int(q.get("page", ["1"])[0])
                try:
                    ver = open("/tmp/attack20/echo-version").read().strip()
                except OSError:
                    ver = "v0"
                auth = self.headers.get("Authorization", "-")
                items = [{"id": i, "auth": auth, "ver": ver, "pad": "p" * 800} for i in range((p - 1) * 10, min(60, p * 10))]
                extra = {"Vary": self.headers.get("X-Vary-Ask")} if self.headers.get("X-Vary-Ask") else None
                return self.send_json(200, items, extra)
            if parts[0] == "stray":
                kind = parts[1]
                p = int(q.get("page", ["1"])[0])
                items = [{"id": i} for i in range((p - 1) * 10, min(60, p * 10))]
                if kind == "dup":
                    return self.send_json(200, items, twice=True)
                if kind == "408idle":
                    self.send_json(200, items)
                    # then behave like Node's/others' idle timeout: an unsolicited 408 and close
                    self.connection.settimeout(0.3)
                    try:
                        data = self.connection.recv(1, socket.MSG_PEEK)
                        if data:
                            self.connection.settimeout(None)
                            return
                    except socket.timeout:
                        pass
                    try:
                        self.wfile.write(b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                        self.wfile.flush()
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                if kind == "lateforge":
                    # answer, then after 0.2 s push a forged page 1 reply and close (nothing behind it)
                    self.send_json(200, items)
                    self.connection.settimeout(0.2)
                    try:
                        data = self.connection.recv(1, socket.MSG_PEEK)
                        if data:
                            self.connection.settimeout(None)
                            return
                    except socket.timeout:
                        pass
                    forged = body_of([{"id": "FORGED"}])
                    try:
                        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(forged) + forged)
                        self.wfile.flush()
                        time.sleep(1.0)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
            return self.send_json(404, {"error": "unknown"})
        except Exception as e:  # noqa
            return self.send_json(500, {"error": str(e)})


if __name__ == "__main__":
    PORT = int(sys.argv[1])
    srv = ThreadingHTTPServer(("127.0.0.1", PORT), H)
    srv.daemon_threads = True
    srv.serve_forever()
