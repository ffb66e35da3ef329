"""Flask-AppBuilder's REST API (`ModelRestApi` over an SQLAlchemy model on SQLite) on Werkzeug, as its docs set it
up.

    python fab_server.py PORT

Route (1000 rows, the primary key ascending by `order_column:id`):
  /api/v1/thing/?q=(page:P,page_size:N)   {"count": 1000, "description_columns": {}, "ids": [...], "label_columns":
                                          {...}, "list_columns": [...], "list_title": "...", "order_columns": [...],
                                          "result": [...]}: Flask's `jsonify` (compact, sorted keys, ASCII escapes).
                                          The page and its size live inside one Rison-encoded `q` parameter: `page`
                                          from 0, `page_size` 20 by default, at most 100 (FAB_API_MAX_PAGE_SIZE):
                                          a larger size is read as 100 without a word. No next link; a page past the
                                          end is `"result": []`. `?page=2` outside `q` is not read at all.
Anonymous requests get the `Public` role, which is given read access to the API (AUTH_ROLE_PUBLIC, as Superset's
PUBLIC_ROLE_LIKE does), so the harness needs no login. The rows go in through the model into a fresh SQLite file,
removed when the server stops.
"""
import logging, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-fab-")
    try:
        from flask import Flask
        from flask_appbuilder import AppBuilder, Model, ModelRestApi
        from flask_appbuilder.models.sqla.interface import SQLAInterface
        from flask_appbuilder.utils.legacy import get_sqla_class
        from sqlalchemy import Column, Integer, String, Text
        from werkzeug.serving import run_simple

        app = Flask("fab_server")
        app.config.update(SQLALCHEMY_DATABASE_URI="sqlite:///" + os.path.join(folder, "fab.sqlite"),
                          SECRET_KEY="harness", WTF_CSRF_ENABLED=False, AUTH_ROLE_PUBLIC="Public",
                          FAB_UPDATE_PERMS=True)
        db = get_sqla_class()(app)

        class Thing(Model):
            __tablename__ = "thing"
            id = Column(Integer, primary_key=True)
            name = Column(String(100))
            kind = Column(String(20))
            price = Column(String(20))
            note = Column(Text, nullable=True)

        class ThingApi(ModelRestApi):
            resource_name = "thing"
            datamodel = SQLAInterface(Thing)
            list_columns = ["id", "name", "kind", "price", "note"]
            base_order = ("id", "asc")

        with app.app_context():
            appbuilder = AppBuilder(app, db.session)
            db.create_all()
            appbuilder.add_api(ThingApi)
            security = appbuilder.sm
            public = security.find_role("Public") or security.add_role("Public")
            for permission in ("can_get", "can_info"):  # ModelRestApi names its permissions by its class
                security.add_permission_role(public, security.find_permission_view_menu(permission, "ThingApi"))
            db.session.add_all([Thing(**row) for row in rows()])
            db.session.commit()
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        run_simple("127.0.0.1", port, app, threaded=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
