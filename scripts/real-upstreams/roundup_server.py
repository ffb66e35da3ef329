"""Roundup's REST API (the issue tracker's own `roundup-server`, the classic template, SQLite).

    .venv-real20/bin/python roundup_server.py PORT

Roundup 2.6 from PyPI in a venv of its own (requirements-real20.txt, run.py installs it). A tracker is installed into
a temporary folder with the classic template and an admin whose password is `harness-roundup` (REST needs a user:
the classic schema gives `Rest Access` to users, not to Anonymous), 1000 issues are created through its Python API,
titles from the harness's rows, then Roundup's WSGI dispatcher serves it at /harness/
(wsgiref, threads: `roundup-server` will not run as root).

  /harness/rest/data/issue?@page_size=100&@page_index=1  (Basic auth)
      {"data": {"collection": [{"id": "1", "link": "http://…/harness/rest/data/issue/1"}, …],
                "@links": {"self": [{"rel": "self", "uri": …}],
                           "next": [{"rel": "next", "uri": "http://…/rest/data/issue?@page_index=2&@page_size=100"}]},
                "@total_size": 1000}}
  **The next link is inside an array** (`data.@links.next[0].uri`); the page parameters start with `@`; the link
  repeats the request's other parameters joined as they came, not encoded again; the last page has no `next`, and a
  page past the end is `{"data": {"collection": [], …}}`. `X-Count-Total` says the total too. Without `@page_size`
  every issue comes in one page.
"""
import os, shutil, socketserver, subprocess, sys, tempfile
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dataset import rows  # noqa: E402

PASSWORD = "harness-roundup"


def main():
    port = int(sys.argv[1])
    home = tempfile.mkdtemp(prefix="pp-roundup-")
    tracker = os.path.join(home, "harness")
    admin = os.path.join(os.path.dirname(sys.executable), "roundup-admin")
    try:
        subprocess.run([admin, "-i", tracker, "install", "classic", "sqlite",
                        f"tracker_web=http://127.0.0.1:{port}/harness/,mail_domain=localhost,mail_host=localhost"],
                       check=True, stdout=sys.stderr)
        subprocess.run([admin, "-i", tracker, "initialise", PASSWORD], check=True, stdout=sys.stderr)
        from roundup import instance
        db = instance.open(tracker).open("admin")
        for row in rows():
            db.issue.create(title=f"{row['name']} {row['note'] or row['kind']}")
        db.commit()
        db.close()
        # `roundup-server` will not run as root (the harness may): the same tracker through Roundup's own WSGI
        # dispatcher (its docs' WSGI deployment), on the standard library's threading WSGI server.
        from roundup.cgi.wsgi_handler import RequestDispatcher
        app = RequestDispatcher(tracker)

        class Server(socketserver.ThreadingMixIn, WSGIServer):
            daemon_threads = True

        class Quiet(WSGIRequestHandler):
            def log_message(self, *args):
                pass

        make_server("127.0.0.1", port, lambda environ, start: app(dict(environ, SCRIPT_NAME="/harness",
                    PATH_INFO=environ["PATH_INFO"].removeprefix("/harness")), start),
                    server_class=Server, handler_class=Quiet).serve_forever()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
