"""graphene-django's GraphQL view (a Relay connection over a Django model) on Django's own runserver, SQLite, as its
docs' tutorial sets it up (`DjangoObjectType` with `relay.Node`, `DjangoConnectionField`, `GraphQLView` at /graphql).

    python graphene_server.py PORT

Route (1000 rows, the primary key ascending):
  /graphql?query=…&variables=…   GraphQL over GET (`query` and `variables`, a JSON object, in the URL):
        {"data": {"things": {"totalCount": 1000, "edges": [{"node": {…}}, …], "pageInfo": {"hasNextPage": true,
        "endCursor": "YXJyYXljb25uZWN0aW9uOjk5"}}}} in the order the query selects, compact JSON, non-ASCII raw.
        Relay's `first`/`after`: the cursor is base64 of `arrayconnection:<offset>`; `first` at most 100
        (RELAY_CONNECTION_MAX_LIMIT), no `first` is 100, a larger one an error in the body under a 200
        (`{"errors": [...], "data": {"things": null}}`). The page size and cursor are GraphQL arguments: in the query
        text or in `variables`, never plain URL parameters (`?after=` is not read).
"""
import os, sys, tempfile

import django
from django.conf import settings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF="graphene_urls",
    SECRET_KEY="harness-only",
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "graphene_django", "djangoapp"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                           "NAME": os.path.join(tempfile.mkdtemp(prefix="pp-graphene-"), "db.sqlite3")}},
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"],
    USE_TZ=True,
    GRAPHENE={"SCHEMA": "graphene_urls.schema"},
    LOGGING_CONFIG=None,
)
django.setup()

from django.core.management import call_command  # noqa: E402


def main():
    port = sys.argv[1]
    call_command("migrate", run_syncdb=True, verbosity=0)
    from djangoapp.models import Thing
    from dataset import rows
    Thing.objects.bulk_create(Thing(**row) for row in rows())
    call_command("runserver", f"127.0.0.1:{port}", use_reloader=False, verbosity=0)


if __name__ == "__main__":
    main()
