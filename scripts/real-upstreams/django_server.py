"""Django REST Framework and djangorestframework-jsonapi on Django's own runserver, as their docs set them up.

    python django_server.py PORT

Routes (all with a trailing slash, as Django writes them; 1000 items, page size 100):
  /api/pages/    PageNumberPagination        {"count","next","previous","results"}
  /api/offset/   LimitOffsetPagination       {"count","next","previous","results"}
  /api/cursor/   CursorPagination            {"next","previous","results"}
  /jsonapi/things/  JsonApiPageNumberPagination  {"links","data","meta":{"pagination":…}}, application/vnd.api+json
  /ninja/offset, /ninja/pages  django-ninja LimitOffsetPagination, PageNumberPagination  {"items": […], "count": N}
                 (the count after the items, JSON written with spaces; no next link)
  /api/offset-capped/, /api/pages-capped/, /link/pages-capped/, /tastypie/v1/capped/  the same classes with a cap
                 of 7 below what a route asks (max_limit, max_page_size): real18's windows and caps
"""
import os, sys, tempfile

import django
from django.conf import settings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF="djangoapp.urls",
    SECRET_KEY="harness-only",
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework", "rest_framework_json_api", "tastypie", "djangoapp"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                           "NAME": os.path.join(tempfile.mkdtemp(prefix="pp-django-"), "db.sqlite3")}},
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"],  # APPEND_SLASH: /api/pages -> 301 /api/pages/
    USE_TZ=True,
    REST_FRAMEWORK={"DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]},
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
