"""Eve (Flask, HATEOAS) on Werkzeug's own server (`app.run`), its MongoDB layer backed by mongomock in memory.

    python eve_server.py PORT

Route (1000 items; ?page=&max_results=, default 25, at most PAGINATION_LIMIT 100):
  /api/v1/people  {"_items": [...], "_links": {"parent": …, "self": …, "next": {"title": "next page",
            "href": "people?max_results=100&page=2"}, "last": {…}, "prev": {…}}, "_meta": {"page": 2,
            "max_results": 100, "total": 1000}}
            The hrefs are relative, with no leading slash (Eve's habit, whatever URL_PREFIX/API_VERSION): resolved
            against the request URL (RFC 3986) they name /api/v1/people?…, against the origin /people?… (a 404).
            Eve also sends `X-Total-Count`; past the last page `{"_items": [], …}` with no next link. The items are the stored documents plus Eve's `_id`, `_created`, `_updated`, `_etag`.
"""
import os, sys

import mongomock
import pymongo

# Eve connects with pymongo.MongoClient (eve/io/mongo/flask_pymongo.py): an in-memory mongomock stands in for a
# MongoDB server, so Eve's own code (its pagination, its links) runs unchanged.
pymongo.MongoClient = mongomock.MongoClient
import eve.io.mongo.flask_pymongo as flask_pymongo  # noqa: E402

flask_pymongo.MongoClient = mongomock.MongoClient

from eve import Eve  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402

SCHEMA = {"n": {"type": "integer"}, "name": {"type": "string"}, "kind": {"type": "string"},
          "price": {"type": "string"}, "note": {"type": "string", "nullable": True}}
SETTINGS = {
    "MONGO_URI": "mongodb://127.0.0.1:1/harness",  # never dialled: mongomock
    "DOMAIN": {"people": {"schema": SCHEMA, "datasource": {"default_sort": [("n", 1)]}}},
    "URL_PREFIX": "api",
    "API_VERSION": "v1",
    "PAGINATION_LIMIT": 100,
    "RESOURCE_METHODS": ["GET"],
    "ITEM_METHODS": ["GET"],
}


def main():
    app = Eve(settings=SETTINGS)
    with app.app_context():
        # Eve's own insert path would need POST; the documents go straight into its (mongomock) collection.
        collection = app.data.driver.db["people"]
        from datetime import datetime, timezone
        stamp = datetime(2026, 1, 1, tzinfo=timezone.utc)
        documents = []
        for row in rows():
            document = {"n": row.pop("id"), **row, "_created": stamp, "_updated": stamp, "_etag": f"etag{row['name']}"}
            documents.append(document)
        collection.insert_many(documents)
    app.run(host="127.0.0.1", port=int(sys.argv[1]))


if __name__ == "__main__":
    main()
