"""Kinto (Pyramid) with its memory backends on waitress, as `kinto start` serves it.

    python kinto_server.py PORT

Route (1000 records in one collection, readable by everyone; no default page size, `_limit=` asks for one):
  /v1/buckets/things/collections/things/records   {"data": [...]}; the next page only in a `Next-Page` response
        header: an absolute URL with the request's parameters, `_limit` and an opaque `_token` (base64 JSON holding
        the last record's sort values, the offset and a fresh uuid4 nonce, so the same page names a different next URL
        each time it is asked for). No total on a GET: `Total-Objects`/`Total-Records` only on HEAD. Records sorted by
        `-last_modified` unless `_sort=`; `_since=` (a timestamp) keeps the records changed after it. `ETag` on every
        page (the collection's timestamp, quoted).
The records are written through Kinto's own HTTP API (PUT bucket and collection, POST records) by calling the WSGI
app in this process before it listens, so the harness never sees a half-filled collection.
"""
import base64, io, json, os, sys
from wsgiref.util import setup_testing_defaults

from waitress import serve

import kinto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402

SETTINGS = {
    "kinto.storage_backend": "kinto.core.storage.memory",
    "kinto.cache_backend": "kinto.core.cache.memory",
    "kinto.permission_backend": "kinto.core.permission.memory",
    "kinto.userid_hmac_secret": "harness-only",
    "multiauth.policies": "basicauth",
    "kinto.bucket_create_principals": "system.Authenticated",
    "kinto.includes": "",
}
AUTH = "Basic " + base64.b64encode(b"harness:harness").decode()


def call(app, method, path, body=None):
    """One request to the WSGI app in process (wsgiref's defaults), as an HTTP client would send it."""
    data = json.dumps(body).encode() if body is not None else b""
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "HTTP_AUTHORIZATION": AUTH,
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)), "wsgi.input": io.BytesIO(data),
               "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "HTTP_HOST": "127.0.0.1"}
    setup_testing_defaults(environ)
    status = []
    chunks = app(environ, lambda s, h, e=None: status.append(s))
    b"".join(chunks)
    assert status[0].startswith("2"), (method, path, status[0])


def main():
    port = int(sys.argv[1])
    app = kinto.main({}, **SETTINGS)
    everyone = {"permissions": {"read": ["system.Everyone"]}}
    call(app, "PUT", "/v1/buckets/things", everyone)
    call(app, "PUT", "/v1/buckets/things/collections/things", {"data": {}})
    for row in rows():
        row["n"] = row.pop("id")
        call(app, "POST", "/v1/buckets/things/collections/things/records", {"data": row})
    serve(app, host="127.0.0.1", port=port, threads=8, _quiet=True)


if __name__ == "__main__":
    main()
