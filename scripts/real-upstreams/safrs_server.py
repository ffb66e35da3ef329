"""SAFRS (a JSON:API server for SQLAlchemy models on Flask) on Werkzeug, as its docs set it up.

    python safrs_server.py PORT

Route (1000 rows, by primary key):
  /api/Things/?page[offset]=O&page[limit]=L   {"data": [{"attributes": {...}, "id": "1", "links": {"self": ...},
                                              "relationships": {}, "type": "Thing"}, ...], "included": [],
                                              "jsonapi": {"version": "1.0"}, "links": {"first", "last", "next",
                                              "prev", "self"}, "meta": {"count": 1000, "limit": L, "total": 1000}}:
                                              `page[limit]` 250 by default. Its links are relative
                                              (`/api/Things/?page[offset]=100&page[limit]=100`); `last` names offset
                                              count // limit * limit (1000 for 1000 rows, an empty page), and **`next`
                                              is left out of the page before the one `last` names** (SAFRS drops a
                                              `next` equal to `last`): where the count is not a multiple of the limit,
                                              following `next` misses the last page.
The rows go in through the model into a fresh SQLite file, removed when the server stops.
"""
import logging, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-safrs-")
    try:
        from flask import Flask
        from flask_sqlalchemy import SQLAlchemy
        from safrs import SAFRSAPI, SAFRSBase
        from werkzeug.serving import run_simple

        db = SQLAlchemy()

        class Thing(SAFRSBase, db.Model):
            __tablename__ = "Things"
            id = db.Column(db.Integer, primary_key=True)
            name = db.Column(db.String(100))
            kind = db.Column(db.String(20))
            price = db.Column(db.String(20))
            note = db.Column(db.Text, nullable=True)

        app = Flask("safrs_server")
        app.config.update(SQLALCHEMY_DATABASE_URI="sqlite:///" + os.path.join(folder, "safrs.sqlite"))
        db.init_app(app)
        with app.app_context():
            db.create_all()
            db.session.add_all([Thing(**row) for row in rows()])
            db.session.commit()
            api = SAFRSAPI(app, host="127.0.0.1", port=port, prefix="/api")
            api.expose_object(Thing)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        run_simple("127.0.0.1", port, app, threaded=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
