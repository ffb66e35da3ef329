#!/usr/bin/env python3
"""attack22: a hostile `Link`-header upstream on loopback (standard library only). Run: link_hostile.py PORT

Every variant serves the same list of N = 95 items {"id": i, "s": ...} as a bare JSON array, GitHub-style, at
`/<variant>/items?page=P&per_page=S` (S defaults to 10, page 1 when absent; a page past the end is `[]`). What
differs is how the pages write their `Link` field (odd RFC 8288 syntax, decoys a careless parser would follow, lying
`last` links), their other headers (huge, many, duplicate), or what comes before the response (1xx interims).

A decoy target is `/decoy/items?page=P`: items with ids 1000 + i, so an answer holding any of them followed a link it
should not have. `VARIANTS` (below) names each variant and what a right answer is; link_attack.py drives them.

Responses are written raw (no http.server header handling), keep-alive, with Content-Length unless stated.
"""
import json
import socket
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

N = 95
SIZE = 10
PORT = 0  # set in main


def items(first, count, base=0):
    out = []
    for i in range(first, min(N, first + count)):
        # escapes and non-ASCII in some strings, as the real-server harness's datasets have
        out.append({"id": base + i, "s": "item %d" % i if i % 7 else "quote \" comma , ü \u2028 %d" % i})
    return out


def page_slice(page, size):
    return items((page - 1) * size, size) if page >= 1 else []


def last_page(size):
    return max(1, (N + size - 1) // size)


def origin():
    return "http://127.0.0.1:%d" % PORT


# ---------------------------------------------------------------------------------------------------------------------
# Link writers: (variant path prefix, page, size) -> list of raw header lines (name, value) to send, besides the body.
# `nxt` is None on the last page.


def std_links(v, page, size, absolute=True):
    base = (origin() if absolute else "") + "/%s/items" % v
    last = last_page(size)
    parts = []
    if page < last:
        parts.append('<%s?page=%d&per_page=%d>; rel="next"' % (base, page + 1, size))
    parts.append('<%s?page=%d&per_page=%d>; rel="last"' % (base, last, size))
    if page > 1:
        parts.append('<%s?page=%d&per_page=%d>; rel="prev"' % (base, page - 1, size))
    return [("Link", ", ".join(parts))]


def nxt_url(v, page, size, absolute=True, extra=""):
    base = (origin() if absolute else "") + "/%s/items" % v
    return "%s?page=%d&per_page=%d%s" % (base, page + 1, size, extra)


def decoy(page):
    return origin() + "/decoy/items?page=%d&per_page=%d" % (page, SIZE)


def skip_url(v, page, size):
    """A link two pages on: following it loses a page of items."""
    return origin() + "/%s/items?page=%d&per_page=%d" % (v, page + 2, size)


def links_for(v, page, size):
    last = last_page(size)
    more = page < last
    n = lambda: nxt_url(v, page, size)
    if v == "std":
        return std_links(v, page, size)
    if v == "nolast":
        return [("Link", '<%s>; rel="next"' % n())] if more else []
    if v == "relq":  # a relative reference of the query alone
        return [("Link", '<?page=%d&per_page=%d>; rel="next"' % (page + 1, size))] if more else []
    if v == "relpath":  # relative path (same folder)
        return [("Link", '<items?page=%d&per_page=%d>; rel="next"' % (page + 1, size))] if more else []
    if v == "reldots":  # ../relpath/items
        return [("Link", '<../%s/items?page=%d&per_page=%d>; rel="next"' % (v, page + 1, size))] if more else []
    if v == "schemerel":  # //host:port/... (same origin)
        return [("Link", '<//127.0.0.1:%d/%s/items?page=%d&per_page=%d>; rel="next"' % (PORT, v, page + 1, size))] if more else []
    if v == "upper":  # parameter name and value in capitals, URL scheme and host in capitals
        u = n().replace("http://127.0.0.1", "HTTP://127.0.0.1")
        return [("Link", '<%s>; REL="NEXT"' % u)] if more else []
    if v == "unquoted":
        return [("Link", "<%s>;rel=next" % n())] if more else []
    if v == "bws":  # RFC 8288 BWS around "=" and OWS around ";"
        return [("Link", '<%s> ;  rel = "next"' % n())] if more else []
    if v == "multirel":  # several relation types in one rel
        return [("Link", '<%s>; rel="nofollow next\tlast-but-not-least"' % n())] if more else []
    if v == "twofields":  # prev in one field, next in another, decoy rel="alternate" in a third
        h = [("Link", '<%s>; rel="alternate"' % decoy(page))]
        if more:
            h.append(("Link", '<%s>; rel="next"' % n()))
        if page > 1:
            h.append(("Link", '<%s>; rel="prev"' % nxt_url(v, page - 2, size)))
        return h
    if v == "quotedcomma":  # a title holding what looks like a next link-value, before the real next
        t = 'a, <%s>; rel="next"' % decoy(page)
        parts = ['<%s>; rel="prev"; title="%s"' % (decoy(page), t.replace('"', '\\"'))]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "quotedgt":  # a quoted ">" and ";" in a parameter before rel
        return [("Link", '<%s>; title=">;,<x>"; rel="next"' % n())] if more else []
    if v == "reltwice":  # RFC 8288 §3.3: a second rel is ignored, so the decoy is prev only
        parts = ['<%s>; rel="prev"; rel="next"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "rev":  # rev="next" is not rel="next"
        parts = ['<%s>; rev="next"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "nextarchive":  # relation types that merely start with next
        parts = ['<%s>; rel="next-archive"' % decoy(page), '<%s>; rel="nextpage"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "anchor":  # RFC 8288 §3.2: anchor sets another context; that next is not this page's next
        parts = ['<%s>; rel="next"; anchor="/decoy/items"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "fragment":
        return [("Link", '<%s#frag>; rel="next"' % n())] if more else []
    if v == "titlestar":  # RFC 8187 ext-value parameter before rel
        return [("Link", "<%s>; title*=UTF-8'de'n%%c3%%a4chste; rel=\"next\"" % n())] if more else []
    if v == "emptyparams":
        return [("Link", '<%s>;; ;rel="next";' % n())] if more else []
    if v == "obsfold":  # the field folded over two lines (obs-fold, RFC 9112 §5.2)
        if not more:
            return []
        return [("Link", '<%s>; rel="prev",\r\n <%s>;\r\n\trel="next"' % (decoy(page), n()))]
    if v == "malformedfirst":  # a link-value without its brackets before a good one
        parts = ['%s; rel="prev"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "unclosed":  # a "<" never closed before the real next: its ">" is the next link-value's
        parts = ['<%s; rel="prev"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "commainurl":  # a comma and a semicolon inside the URL (in the brackets)
        return [("Link", '<%s&x=a,b;c>; rel="next"' % n())] if more else []
    if v == "plusquery":  # a query whose + and %2B must be sent as written; last fans out
        q = "&q=a+b%2Bc"
        base = origin() + "/%s/items" % v
        parts = []
        if more:
            parts.append('<%s?page=%d&per_page=%d%s>; rel="next"' % (base, page + 1, size, q))
        parts.append('<%s?page=%d&per_page=%d%s>; rel="last"' % (base, last, size, q))
        return [("Link", ", ".join(parts))]
    if v == "utf8":  # raw UTF-8 (not percent-encoded) in the link's query
        return [("Link", '<%s&q=\u00fc>; rel="next"' % n())] if more else []
    if v == "spaceinurl":  # a space inside the URL (not allowed; the URL is unambiguous though)
        return [("Link", '<%s&q=a b>; rel="next"' % n())] if more else []
    if v == "wsbrackets":  # whitespace just inside the brackets
        return [("Link", '< %s >; rel="next"' % n())] if more else []
    if v == "lastlow":  # rel=last says 3, but the list goes on by next to page 10
        parts = ['<%s?page=3&per_page=%d>; rel="last"' % (origin() + "/%s/items" % v, size)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "lasthigh":  # rel=last says 20, the list ends at page 10 (pages past it are [])
        parts = ['<%s?page=20&per_page=%d>; rel="last"' % (origin() + "/%s/items" % v, size)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "lastfirstonly":  # last only on page 1 (fan-out), later pages only next
        if page == 1:
            return std_links(v, page, size)
        return [("Link", '<%s>; rel="next"' % n())] if more else []
    if v == "lastreorder":  # last's query in another order than next's
        base = origin() + "/%s/items" % v
        parts = ['<%s?per_page=%d&page=%d>; rel="last"' % (base, size, last)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "lastnext":  # one link-value that is both next and last (the second page of two... here every page)
        if not more:
            return []
        if page + 1 == last:
            return [("Link", '<%s>; rel="next last"' % n())]
        return std_links(v, page, size)
    if v == "lastzero":  # last at page=0 and a negative, a huge number
        parts = ['<%s?page=0&per_page=%d>; rel="last"' % (origin() + "/%s/items" % v, size)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "lasthuge":
        parts = ['<%s?page=99999999999999999999999&per_page=%d>; rel="last"' % (origin() + "/%s/items" % v, size)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "lastover":  # rel=last at page 2000, over the route's maxPages (1000): documented as too_many_pages
        parts = ['<%s?page=2000&per_page=%d>; rel="last"' % (origin() + "/%s/items" % v, size)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "titlerel":  # every page's prev has title="rel=next" (a quoted-string: no relation); the last has no next
        parts = ['<%s>; rel="prev"; title="rel=next"' % decoy(page)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "anchorself":  # anchor naming this very page (RFC 8288: the same context): a plain next
        return [("Link", '<%s>; rel="next"; anchor=""' % n())] if more else []
    if v == "lastforeign":  # last on another origin (never to be fetched), next fine
        parts = ['<http://127.0.0.2:%d/%s/items?page=%d&per_page=%d>; rel="last"' % (PORT, v, last, size)]
        if more:
            parts.insert(0, '<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "manylinks":  # 1,200 other link-values before next (~55 KB field, under the 64 KiB head limit)
        parts = ['<%s/x/%d>; rel="item"' % (origin(), i) for i in range(1200)]
        if more:
            parts.append('<%s>; rel="next"' % n())
        return [("Link", ", ".join(parts))]
    if v == "manyfields":  # 1,200 Link fields, next in the last one (~60 KB)
        h = [("Link", '<%s/x/%d>; rel="item"' % (origin(), i)) for i in range(1200)]
        if more:
            h.append(("Link", '<%s>; rel="next"' % n()))
        return h
    if v == "manyheaders":  # 3,000 other header fields
        h = [("X-Pad-%d" % i, "v") for i in range(3000)]
        return h + ([("Link", '<%s>; rel="next"' % n())] if more else [])
    if v == "hugeheader":  # one 70 KB header field (over the 64 KiB head limit)
        return [("X-Huge", "a" * 70000)] + ([("Link", '<%s>; rel="next"' % n())] if more else [])
    if v == "hugeheader2":  # page 3 only: the walk is under way when it comes
        h = [("X-Huge", "a" * 70000)] if page == 3 else []
        return h + ([("Link", '<%s>; rel="next"' % n())] if more else [])
    if v == "biglink":  # a next link of 60 KB (a long opaque token): under the head limit
        tok = "t" * 60000
        return [("Link", '<%s&token=%s>; rel="next"' % (n(), tok))] if more else []
    if v == "nextself":  # the last page links to itself
        if more:
            return [("Link", '<%s>; rel="next"' % n())]
        return [("Link", '<%s>; rel="next"' % (origin() + "/%s/items?page=%d&per_page=%d" % (v, page, size)))]
    if v == "emptytarget":  # the last page's next is <> (this very URL)
        if more:
            return [("Link", '<%s>; rel="next"' % n())]
        return [("Link", '<>; rel="next"')]
    if v == "https":  # next on https, same host and port
        return [("Link", '<%s>; rel="next"' % n().replace("http://", "https://"))] if more else []
    if v == "filescheme":
        return [("Link", '<file:///etc/passwd>; rel="next"')] if more else []
    if v == "userinfo":  # credentials in the next link (same origin)
        return [("Link", '<%s>; rel="next"' % n().replace("http://", "http://user:pw@"))] if more else []
    if v == "localhost":  # localhost is another host than 127.0.0.1
        return [("Link", '<%s>; rel="next"' % n().replace("127.0.0.1", "localhost"))] if more else []
    if v == "defaultport80":  # an explicit :80 where the origin has another port: another origin
        return [("Link", '<%s>; rel="next"' % n().replace(":%d" % PORT, ":80"))] if more else []
    if v == "hostdot":  # 127.0.0.1. (a trailing dot)
        return [("Link", '<%s>; rel="next"' % n().replace("127.0.0.1", "127.0.0.1."))] if more else []
    # header-shape variants whose Link is standard
    return [("Link", '<%s>; rel="next"' % n())] if more else []


# Variants whose difference is in the framing rather than the Link field: handled in respond().
FRAMING = {
    "interim",  # three 103 Early Hints with a decoy next link before every 200
    "interimflood",  # page 2: a 100 Continue every 0.2 s for 60 s, then the page
    "dupcl",  # page 2: two different Content-Length fields
    "dupclsame",  # every page: the same Content-Length twice
    "trailerlink",  # chunked, with a decoy Link in the trailer
    "linkcase",  # the field name written LINK
    "dupctype",  # two Content-Type fields (json and html)
    "nullbyte",  # page 2: a NUL inside a header value
    "bareLF",  # every line ends in LF alone
    "http10",  # HTTP/1.0 responses, keep-alive asked for
}


def respond(sock, v, path, query):
    q = parse_qs(query, keep_blank_values=True)
    try:
        page = int(q.get("page", ["1"])[0])
        size = int(q.get("per_page", [str(SIZE)])[0])
    except ValueError:
        return send(sock, 400, [("Content-Type", "application/json")], b'{"message":"bad page"}')
    size = max(1, min(size, 100))
    if v == "decoy":
        body = json.dumps(items((page - 1) * size, size, base=1000), separators=(",", ":")).encode()
        return send(sock, 200, [("Content-Type", "application/json")], body)
    if v == "plusquery" and page > 1 and "q=a+b%2Bc" not in query:
        return send(sock, 400, [("Content-Type", "application/json")], b'{"message":"query q re-encoded"}')
    if v == "utf8" and page > 1 and q.get("q", [""])[0] != "\u00fc":
        return send(sock, 400, [("Content-Type", "application/json")], b'{"message":"q lost"}')
    body = json.dumps(page_slice(page, size), separators=(",", ":")).encode()
    headers = [("Content-Type", "application/json; charset=utf-8")] + links_for(v, page, size)
    pre = b""
    eol = "\r\n"
    status_line = "HTTP/1.1 200 OK"
    if v == "interim":
        hint = "HTTP/1.1 103 Early Hints\r\nLink: <%s>; rel=\"next\"\r\n\r\n" % decoy(page)
        pre = (hint * 3).encode()
    if v == "interimflood" and page == 2:
        end = time.time() + 60
        try:
            while time.time() < end:
                sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                time.sleep(0.2)
        except OSError:
            return
    if v == "dupcl" and page == 2:
        headers += [("Content-Length", str(len(body))), ("Content-Length", str(len(body) + 5))]
        return send(sock, 200, headers, body, length=False)
    if v == "dupclsame":
        headers += [("Content-Length", str(len(body))), ("Content-Length", str(len(body)))]
        return send(sock, 200, headers, body, length=False)
    if v == "trailerlink":
        headers += [("Transfer-Encoding", "chunked"), ("Trailer", "Link")]
        half = len(body) // 2
        chunks = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\nLink: <%s>; rel=\"next\"\r\n\r\n" % (
            half, body[:half], len(body) - half, body[half:], decoy(page).encode())
        return send(sock, 200, headers, chunks, length=False)
    if v == "linkcase":
        headers = [(k.upper() if k == "Link" else k, val) for k, val in headers]
    if v == "dupctype":
        headers.append(("Content-Type", "text/html"))
    if v == "nullbyte" and page == 2:
        headers.append(("X-Nul", "a\x00b"))
    if v == "bareLF":
        eol = "\n"
    if v == "http10":
        status_line = "HTTP/1.0 200 OK"
        headers.append(("Connection", "keep-alive"))
    return send(sock, 200, headers, body, pre=pre, eol=eol, status_line=status_line)


def send(sock, status, headers, body, length=True, pre=b"", eol="\r\n", status_line=None):
    head = (status_line or "HTTP/1.1 %d %s" % (status, "OK" if status == 200 else "Error")) + eol
    for k, val in headers:
        head += "%s: %s%s" % (k, val, eol)
    if length:
        head += "Content-Length: %d%s" % (len(body), eol)
    head += eol
    sock.sendall(pre + head.encode("utf-8", "surrogateescape") + body)


def serve(conn):
    buf = b""
    conn.settimeout(90)
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
                if len(buf) > 1 << 20:
                    return
            head, buf = buf.split(b"\r\n\r\n", 1)
            line = head.split(b"\r\n", 1)[0].decode("latin-1")
            parts = line.split(" ")
            if len(parts) < 2:
                return
            target = parts[1]
            split = urlsplit(target)
            segs = split.path.strip("/").split("/")
            v = segs[0] if segs else ""
            if v == "__log":  # the targets asked since the last look, then forgotten
                with LOCK:
                    body = json.dumps(LOG).encode()
                    LOG.clear()
                send(conn, 200, [("Content-Type", "application/json")], body)
                continue
            with LOCK:
                LOG.append(target)
            respond(conn, v, split.path, split.query)
    except OSError:
        return
    finally:
        conn.close()


LOG = []
LOCK = threading.Lock()


def main():
    global PORT
    PORT = int(sys.argv[1])
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", PORT))
    srv.listen(128)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
