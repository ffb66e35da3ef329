"""localstripe (a stateful Stripe fake on aiohttp) on loopback, as `localstripe --from-scratch` serves it.

    python localstripe_server.py PORT

Route (1000 customers, made before it listens):
  /v1/customers   {"data": [...], "has_more": B, "object": "list", "total_count": 1000, "url": "/v1/customers"},
        written by `json.dumps(indent=2, sort_keys=True)` (so `has_more` comes after the items, and non-ASCII is
        escaped); `?limit=` (10 by default, no upper bound) and `?starting_after=<id of the last customer seen>`: a
        keyset named by the last item of the page, not by a cursor the server hands out. An id it does not know starts
        the page at the beginning again (real Stripe refuses it with an error). Customers in the order they were made.
The customers are made with localstripe's own `Customer._api_create` (what its POST /v1/customers calls), in this
process before it listens. localstripe pickles its whole store to /tmp/localstripe.pickle on every write (its
"persist between runs" convenience, O(n^2) for 1000 writes, and a shared path); that is turned off here: it does not
touch how lists are paged. It binds `::` (every interface) itself, so the app is served here on 127.0.0.1 instead.
"""
import os, sys

from aiohttp import web

from localstripe import resources
from localstripe.server import app

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    port = int(sys.argv[1])
    resources.Store.dump_to_disk = lambda self: None
    for row in rows():
        resources.Customer._api_create(
            name=row["name"], email=f"thing-{row['id']}@example.com", description=row["note"],
            metadata={"n": str(row["id"]), "kind": row["kind"], "price": row["price"]})
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


if __name__ == "__main__":
    main()
