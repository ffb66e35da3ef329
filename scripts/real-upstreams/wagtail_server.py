"""Wagtail's API v2 (the pages endpoint, as its docs set it up) on Django's own runserver, SQLite.

    python wagtail_server.py PORT

Route (1000 live pages: the site's home page and 999 children; default page size 20, and the default
WAGTAILAPI_LIMIT_MAX of 20):
  /api/v2/pages/  {"meta": {"total_count": 1000}, "items": [{"id", "meta": {"type", "detail_url", "html_url",
        "slug", "first_published_at"}, "title"}, ...]}: `?offset=&limit=`, no next link anywhere, and a `limit` above
        the maximum is refused with 400 `{"message": "limit cannot be higher than 20"}`. `detail_url` is absolute,
        from the request's Host.
"""
import os, sys, tempfile

import django
from django.conf import settings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF="wagtail_urls",
    SECRET_KEY="harness-only",
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions",
                    "rest_framework", "taggit", "modelcluster", "wagtail", "wagtail.api.v2"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                           "NAME": os.path.join(tempfile.mkdtemp(prefix="pp-wagtail-"), "db.sqlite3")}},
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"],
    USE_TZ=True,
    STATIC_URL="/static/",
    WAGTAIL_SITE_NAME="harness",
    WAGTAILADMIN_BASE_URL="http://127.0.0.1",
    LOGGING_CONFIG=None,
)
django.setup()

from django.core.management import call_command  # noqa: E402


def main():
    port = sys.argv[1]
    call_command("migrate", verbosity=0)
    from wagtail.models import Page, Site
    from dataset import rows
    home = Site.objects.get(is_default_site=True).root_page
    home.title, home.slug = "thing-1", "thing-1"
    home.save_revision().publish()
    for row in list(rows())[1:]:
        home.add_child(instance=Page(title=row["name"], slug=row["name"]))
    call_command("runserver", f"127.0.0.1:{port}", use_reloader=False, verbosity=0)


if __name__ == "__main__":
    main()
