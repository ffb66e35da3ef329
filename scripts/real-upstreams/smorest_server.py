"""flask-smorest's `@blp.paginate()` on Werkzeug's own server (Flask's `app.run`), as its docs set it up.

    python smorest_server.py PORT

Route (1000 items; ?page=&page_size=, default 10, at most 100: more is a 422):
  /things/   a bare JSON array; the pagination in a header, JSON:
             X-Pagination: {"total": 1000, "total_pages": 10, "first_page": 1, "last_page": 10, "page": 2,
                            "previous_page": 1, "next_page": 3}
             (past the last page: [] and no "page" or "next_page"). Flask writes compact JSON with sorted keys and
             non-ASCII escaped (\\u00e9); Werkzeug's server closes every connection.
"""
import os, sys

from flask import Flask
from flask.views import MethodView
from flask_smorest import Api, Blueprint
from marshmallow import Schema, fields

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402

THINGS = list(rows())


class ThingSchema(Schema):
    id = fields.Int()
    name = fields.Str()
    kind = fields.Str()
    price = fields.Str()
    note = fields.Str(allow_none=True)


app = Flask(__name__)
app.config.update(API_TITLE="things", API_VERSION="1", OPENAPI_VERSION="3.0.2")
api = Api(app)
blp = Blueprint("things", __name__, url_prefix="/things")


@blp.route("/")
class Things(MethodView):
    @blp.response(200, ThingSchema(many=True))
    @blp.paginate()
    def get(self, pagination_parameters):
        pagination_parameters.item_count = len(THINGS)
        return THINGS[pagination_parameters.first_item: pagination_parameters.last_item + 1]


api.register_blueprint(blp)

if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(sys.argv[1]))
