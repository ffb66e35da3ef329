"""The harness's cases: a PageProxy route as a user would write it in config.json (the README's routes for real
services), the server it points at, and how the truth is walked directly (`truth`, see run.direct_walk).

`upstream` is a path on the server; run.py puts the server's loopback origin in front of it.
"""

from urllib.parse import quote

GITHUB_ACCEPT = {"Accept": "application/vnd.github+json"}
COMMENTS = "/repos/PyGithub/PyGithub/issues/1136/comments"
ARTIFACTS = "/repos/transmission-web-control/transmission-web-control/actions/artifacts?name=build-tar"
SEARCH = "/search/code?q=%22profile+%3D+black%22+in%3Afile+language%3Atoml"

KINTO_RECORDS = "/v1/buckets/things/collections/things/records"
WAGTAIL_PAGES = "/api/v2/pages/"
STRIPE_AUTH = {"Authorization": "Bearer sk_test_harness"}  # localstripe takes any secret key that starts with sk_
CUSTOMERS = "/v1/customers"
EXPERIMENTS = "/api/2.0/mlflow/experiments/search"
NO_EXPERIMENT = EXPERIMENTS + "?max_results=100&filter=name%3D%27nothing%27"
JUPYTERHUB_AUTH = {"Authorization": "token harness-jupyterhub-token"}
JUPYTERHUB_HEADERS = dict(JUPYTERHUB_AUTH, Accept="application/jupyterhub-pagination+json")
GROUPS, USERS = "/hub/api/groups", "/hub/api/users"
PICCOLO_THINGS = "/things/"
MAILMAN_AUTH = {"Authorization": "Basic cmVzdGFkbWluOnJlc3RwYXNz"}  # restadmin:restpass, mailman_server.py's
# Every member of every list (the one list here); its roster URL (/3.0/lists/…/roster/member) is a 500 under
# SQLAlchemy 2.1 (Mailman 3.3.10's `select_from(Select)`), this one is not.
MEMBERS = "/3.0/members"
FAB_THINGS = "/api/v1/thing/"
# A filter and an order inside FAB's q, beside its page (real15): 333 rows, names descending.
FAB_FILTER = "filters:!((col:kind,opr:eq,value:gizmo)),order_column:name,order_direction:desc"
SAFRS_THINGS = "/api/Things/"
SYNAPSE_AUTH = {"Authorization": "Bearer harness-synapse-token"}  # the admin's token, synapse_server.py's
# Without the admin, whose own row changes under every request the harness makes (its `last_seen_ts`).
SYNAPSE_USERS = "/_synapse/admin/v2/users?admins=false"
MASTODON_TAG = "/api/v1/timelines/tag/fgiztsshwiaqqiztpmmjbtvmescsculuvmgjgopwoeidbcrixp"
# graphene-django's Relay connection over GET (real15): the cursor and page size are GraphQL variables, in the JSON
# of the `variables` parameter.
GRAPHQL_THINGS = ("/graphql?query=" + quote("query($after:String,$first:Int){things(first:$first,after:$after)"
                                            "{totalCount edges{node{id name kind price note}} pageInfo{hasNextPage endCursor}}}")
                  )
# Strawberry's Relay connection (real16): the same over GET, with no totalCount (the docs' `ListConnection` has none).
STRAWBERRY_THINGS = ("/graphql?query=" + quote("query($after:String,$first:Int){things(first:$first,after:$after)"
                                               "{edges{node{id name kind price note}} pageInfo{hasNextPage endCursor}}}"))
# The last 100 things: Relay's cursor of the 900th (base64 of `arrayconnection:899`), a connection that ends on its page.
STRAWBERRY_LAST = STRAWBERRY_THINGS + "&variables=" + quote('{"first":100,"after":"YXJyYXljb25uZWN0aW9uOjg5OQ=="}')
AIRFLOW_VARIABLES = "/api/v2/variables"
# real19: Reddit listings as PRAW recorded them (reddit_replay.py): u/spez's comments and posts, top of all time.
REDDIT_TOP, REDDIT_LIVE = "/user/spez/?raw_json=1&sort=top&t=all", "/live/ukaeu1ik4sw5?raw_json=1"
REDDIT_CURSOR = {"scheme": "cursor", "cursorPath": "data.after", "cursorParameter": "after"}
# real19: Zendesk's cursor pagination as zenpy recorded it (zendesk_replay.py); `page[size]` as Zendesk's docs write it.
ZENDESK_GROUPS, ZENDESK_MACROS = "/api/v2/groups.json", "/api/v2/macros.json"
ZENDESK_TAGS, ZENDESK_ACTIVITIES = "/api/v2/tags.json", "/api/v2/activities.json"
ZENDESK_NEXT = {"scheme": "next-url", "nextPath": "links.next"}
ZENDESK_CURSOR = {"scheme": "cursor", "cursorPath": "meta.after_cursor", "cursorParameter": "page[after]",
                  "sizeParameter": "page[size]"}
# real19: a Notion block's children as notion-sdk-py recorded them (notion_replay.py), 2 a page.
NOTION_CHILDREN = "/v1/blocks/393abc1e-edcd-814b-aee5-cf69471e5a43/children"
DATATABLES_PAGES, DATATABLES_OFFSET = "/datatables/pages/?format=datatables", "/datatables/offset/?format=datatables"

TRUTH = {
    "drf-pages": {"kind": "body-next", "start": "/api/pages/", "next": "next", "items": "results"},
    "drf-offset": {"kind": "body-next", "start": "/api/offset/", "next": "next", "items": "results"},
    "drf-cursor": {"kind": "body-next", "start": "/api/cursor/", "next": "next", "items": "results"},
    "jsonapi": {"kind": "body-next", "start": "/jsonapi/things/", "next": "links.next", "items": "data",
                "headers": {"Accept": "application/vnd.api+json"}},
    "fastapi-page": {"kind": "page-count", "start": "/page?size=100", "items": "items"},
    "fastapi-links": {"kind": "body-next", "start": "/links?size=100", "next": "links.next", "items": "items"},
    "fastapi-offset": {"kind": "offset-total", "start": "/offset?limit=100", "items": "items"},
    "fastapi-cursor": {"kind": "cursor", "start": "/cursor?size=100", "cursor": "next_page", "parameter": "cursor",
                       "items": "items"},
    "smorest": {"kind": "header-next", "start": "/things/?page_size=100", "header": "X-Pagination", "next": "next_page",
                "parameter": "page", "items": ""},
    "ninja-offset": {"kind": "counted", "start": "/ninja/offset?limit=100", "parameter": "offset", "first": 0,
                     "step": 100, "total": "count", "items": "items", "compact": False},
    "ninja-pages": {"kind": "counted", "start": "/ninja/pages?page_size=100", "parameter": "page", "first": 1, "step": 1,
                    "total": "count", "items": "items", "compact": False},
    "litestar-classic": {"kind": "page-count", "start": "/classic?page_size=100&current_page=1", "items": "items",
                         "page_key": "current_page", "pages_key": "total_pages", "parameter": "current_page"},
    "litestar-offset": {"kind": "offset-total", "start": "/offset?limit=100&offset=0", "items": "items"},
    "litestar-cursor": {"kind": "cursor", "start": "/cursor?results_per_page=100", "cursor": "cursor",
                        "parameter": "cursor", "items": "items"},
    "eve": {"kind": "body-next", "start": "/api/v1/people?max_results=100", "next": "_links.next.href", "items": "_items",
            "compact": False},
    "eve-default": {"kind": "body-next", "start": "/api/v1/people", "next": "_links.next.href", "items": "_items",
                    "compact": False},
    "tastypie": {"kind": "body-next", "start": "/tastypie/v1/thing/", "next": "meta.next", "items": "objects",
                 "compact": False},
    "tastypie-all": {"kind": "body-next", "start": "/tastypie/v1/thing/?limit=0", "next": "meta.next",
                     "items": "objects", "compact": False},
    "datasette-rows": {"kind": "body-next", "start": "/things/things.json", "next": "next_url", "items": "rows",
                       "compact": False},
    "datasette-objects": {"kind": "body-next", "start": "/things/things.json?_shape=objects", "next": "next_url",
                          "items": "rows", "compact": False},
    "datasette-array": {"kind": "link", "start": "/things/things.json?_shape=array", "items": "", "compact": False},
    "datasette-max": {"kind": "body-next", "start": "/things/things.json?_shape=objects&_size=max", "next": "next_url",
                      "items": "rows", "compact": False},
    "link-pages": {"kind": "link", "start": "/link/pages/", "items": ""},
    "link-pages-50": {"kind": "link", "start": "/link/pages/?page_size=50", "items": ""},
    "link-offset": {"kind": "link", "start": "/link/offset/", "items": ""},
    "link-cursor": {"kind": "link", "start": "/link/cursor/", "items": ""},
    "kinto": {"kind": "header-url", "start": KINTO_RECORDS + "?_limit=100", "header": "Next-Page", "items": "data"},
    "kinto-sorted": {"kind": "header-url", "start": KINTO_RECORDS + "?_since=0&_sort=n&_limit=100", "header": "Next-Page",
                     "items": "data"},
    "kinto-unpaged": {"kind": "header-url", "start": KINTO_RECORDS, "header": "Next-Page", "items": "data"},
    "wagtail": {"kind": "offset-count", "start": WAGTAIL_PAGES, "total": "meta.total_count", "items": "items",
                "compact": False},
    "wagtail-limit": {"kind": "offset-count", "start": WAGTAIL_PAGES + "?limit=20", "total": "meta.total_count",
                      "items": "items", "compact": False},
    "stripe": {"kind": "has-more", "start": CUSTOMERS + "?limit=100", "items": "data", "headers": STRIPE_AUTH,
               "compact": False},
    "stripe-default": {"kind": "has-more", "start": CUSTOMERS, "items": "data", "headers": STRIPE_AUTH, "compact": False},
    "mlflow": {"kind": "cursor", "start": EXPERIMENTS + "?max_results=100", "cursor": "next_page_token",
               "parameter": "page_token", "items": "experiments", "compact": False},
    "mlflow-1000": {"kind": "cursor", "start": EXPERIMENTS + "?max_results=1000", "cursor": "next_page_token",
                    "parameter": "page_token", "items": "experiments", "compact": False},
    "mlflow-empty": {"kind": "cursor", "start": NO_EXPERIMENT, "cursor": "next_page_token", "parameter": "page_token",
                     "items": "experiments", "compact": False},
    "mastodon": {"kind": "link", "start": MASTODON_TAG + "?limit=10", "items": ""},
    "github-comments": {"kind": "link", "start": COMMENTS + "?per_page=3", "items": "", "headers": GITHUB_ACCEPT},
    "github-artifacts": {"kind": "link", "start": ARTIFACTS, "items": "artifacts", "headers": GITHUB_ACCEPT},
    "github-search": {"kind": "link", "start": SEARCH + "&per_page=5", "items": "items", "headers": GITHUB_ACCEPT},
    "reddit-top": {"kind": "cursor", "start": REDDIT_TOP + "&limit=100", "cursor": "data.after", "parameter": "after",
                   "items": "data.children", "compact": False},
    "reddit-top-before": {"kind": "cursor", "start": REDDIT_TOP + "&before=3cxedn&limit=100", "cursor": "data.after",
                          "parameter": "after", "items": "data.children", "compact": False},
    "zendesk-groups": {"kind": "next-while-more", "start": ZENDESK_GROUPS + "?page[size]=1", "next": "links.next",
                       "more": "meta.has_more", "items": "groups"},
    "zendesk-groups-100": {"kind": "next-while-more", "start": ZENDESK_GROUPS + "?page[size]=100", "next": "links.next",
                           "more": "meta.has_more", "items": "groups"},
    "zendesk-macros": {"kind": "next-while-more", "start": ZENDESK_MACROS + "?page[size]=1", "next": "links.next",
                       "more": "meta.has_more", "items": "macros"},
    "zendesk-tags": {"kind": "next-while-more", "start": ZENDESK_TAGS + "?page[size]=1", "next": "links.next",
                     "more": "meta.has_more", "items": "tags"},
    "zendesk-activities": {"kind": "next-while-more", "start": ZENDESK_ACTIVITIES + "?page[size]=1",
                           "next": "links.next", "more": "meta.has_more", "items": "activities"},
    "notion": {"kind": "cursor", "start": NOTION_CHILDREN + "?page_size=2", "cursor": "next_cursor",
               "parameter": "start_cursor", "items": "results"},
    "reddit-live": {"kind": "cursor", "start": REDDIT_LIVE + "&limit=100", "cursor": "data.after", "parameter": "after",
                    "items": "data.children", "compact": False},
    "jupyterhub-groups": {"kind": "body-next", "start": GROUPS, "next": "_pagination.next.url", "items": "items",
                          "headers": JUPYTERHUB_HEADERS, "compact": False},
    "jupyterhub-users": {"kind": "body-next", "start": USERS + "?limit=100", "next": "_pagination.next.url",
                         "items": "items", "headers": JUPYTERHUB_HEADERS, "compact": False},
    "mailman": {"kind": "counted", "start": MEMBERS + "?count=100&page=1", "parameter": "page", "first": 1, "step": 1,
                "total": "total_size", "items": "entries", "headers": MAILMAN_AUTH, "compact": False},
    "mailman-all": {"kind": "counted", "start": MEMBERS, "parameter": "page", "first": 1, "step": 1, "total": "total_size",
                    "items": "entries", "headers": MAILMAN_AUTH, "compact": False},
    "fab": {"kind": "rison", "start": FAB_THINGS + "?q=(page:0,page_size:100)", "size": 100, "total": "count",
            "items": "result"},
    "fab-default": {"kind": "rison", "start": FAB_THINGS, "size": 20, "total": "count", "items": "result"},
    "fab-filter": {"kind": "rison", "start": FAB_THINGS + "?q=(" + FAB_FILTER + ",page:0,page_size:100)", "size": 100,
                   "members": FAB_FILTER + ",", "total": "count", "items": "result"},
    "graphene": {"kind": "graphql-cursor", "start": GRAPHQL_THINGS + "&variables=" + quote('{"first":100}'),
                 "connection": "data.things", "first": 100, "items": "data.things.edges"},
    "strawberry": {"kind": "graphql-cursor", "start": STRAWBERRY_THINGS + "&variables=" + quote('{"first":100}'),
                   "connection": "data.things", "first": 100, "items": "data.things.edges"},
    "strawberry-last": {"kind": "graphql-cursor", "start": STRAWBERRY_LAST, "connection": "data.things", "first": 100,
                        "items": "data.things.edges"},
    "airflow": {"kind": "offset-count", "start": AIRFLOW_VARIABLES + "?limit=100", "total": "total_entries",
                "items": "variables"},
    "airflow-default": {"kind": "offset-count", "start": AIRFLOW_VARIABLES, "total": "total_entries", "items": "variables"},
    "airflow-500": {"kind": "offset-count", "start": AIRFLOW_VARIABLES + "?limit=500", "total": "total_entries",
                    "items": "variables"},
    "datatables-pages": {"kind": "offset-count", "start": DATATABLES_PAGES + "&start=0&length=100", "parameter": "start",
                         "total": "recordsFiltered", "items": "data"},
    "datatables-pages-default": {"kind": "offset-count", "start": DATATABLES_PAGES, "parameter": "start",
                                 "total": "recordsFiltered", "items": "data"},
    "datatables-offset": {"kind": "offset-count", "start": DATATABLES_OFFSET + "&start=0&length=100", "parameter": "start",
                          "total": "recordsFiltered", "items": "data"},
    "safrs": {"kind": "next-or-last", "start": SAFRS_THINGS + "?page[limit]=300", "total": "meta.count", "items": "data"},
    "safrs-100": {"kind": "next-or-last", "start": SAFRS_THINGS + "?page[limit]=100", "total": "meta.count",
                  "items": "data"},
    "safrs-default": {"kind": "next-or-last", "start": SAFRS_THINGS, "total": "meta.count", "items": "data"},
    "synapse": {"kind": "cursor", "start": SYNAPSE_USERS + "&from=0&limit=100", "cursor": "next_token", "parameter": "from",
                "items": "users", "headers": SYNAPSE_AUTH},
    "synapse-default": {"kind": "cursor", "start": SYNAPSE_USERS, "cursor": "next_token", "parameter": "from",
                        "items": "users", "headers": SYNAPSE_AUTH},
    # real18: the DRF and Tastypie views capped at 7 below the 100 a route asks (django_server.py).
    "drf-offset-capped": {"kind": "body-next", "start": "/api/offset-capped/?limit=100", "next": "next", "items": "results"},
    "drf-pages-capped": {"kind": "body-next", "start": "/api/pages-capped/?page_size=100", "next": "next",
                         "items": "results"},
    "link-pages-capped": {"kind": "link", "start": "/link/pages-capped/?page_size=100", "items": ""},
    "tastypie-capped": {"kind": "body-next", "start": "/tastypie/v1/capped/?limit=100", "next": "meta.next",
                        "items": "objects", "compact": False},
    "piccolo": {"kind": "until-empty", "start": PICCOLO_THINGS + "?__page_size=100", "parameter": "__page", "items": "rows"},
    "piccolo-range": {"kind": "until-empty", "start": PICCOLO_THINGS + "?__page_size=100&__range_header=true",
                      "parameter": "__page", "items": "rows"},
}

DRF, JSONAPI, FASTAPI, GITHUB = ("DRF 3.18 (runserver)", "DRF JSON:API 8.1 (runserver)",
                                 "fastapi-pagination 0.16 (uvicorn)", "api.github.com replay")
SMOREST, NINJA, LITESTAR = ("flask-smorest 0.47 (Werkzeug)", "django-ninja 1.7 (runserver)", "Litestar 2.25 (uvicorn)")
EVE, TASTYPIE, DATASETTE = ("Eve 2.3 (Werkzeug, mongomock)", "django-tastypie 0.15 (runserver)",
                            "Datasette 0.65 (uvicorn)")
LINK, KINTO, WAGTAIL = ("drf-link-header-pagination 0.2 (runserver)", "Kinto 26.5 (waitress, memory backend)",
                       "Wagtail 8.0 API v2 (runserver)")
STRIPE, MLFLOW, MASTODON = ("localstripe 1.15 (aiohttp) /v1/customers", "MLflow 3.17 tracking server (uvicorn, SQLite)",
                            "Mastodon replay (Mastodon.py 2.3.3 cassettes) hashtag timeline")
JUPYTERHUB, PICCOLO = "JupyterHub 6.1 REST API (Tornado, SQLite)", "Piccolo API 1.11 PiccoloCRUD (uvicorn, SQLite)"
MAILMAN = "Mailman 3.3 core REST API (wsgiref, SQLite) /members"
FAB, SAFRS = "Flask-AppBuilder 5.3 ModelRestApi (Werkzeug, SQLite)", "SAFRS 3.2 JSON:API (Werkzeug, SQLite)"
GRAPHENE = "graphene-django 3.2 Relay connection (runserver, SQLite) /graphql GET"
DATATABLES = "djangorestframework-datatables 0.7 (runserver)"
STRAWBERRY = "Strawberry 0.327 Relay ListConnection (uvicorn) /graphql GET"
AIRFLOW = "Apache Airflow 3.3 REST API v2 (api-server, SQLite) /api/v2/variables"
REDDIT = "Reddit replay (PRAW 8.0.3 cassettes)"
ZENDESK = "Zendesk replay (zenpy cassettes, 2023)"
NOTION = "Notion replay (notion-sdk-py cassettes, 2026) block children"
STRAWBERRY_JSON = {"scheme": "cursor", "queryEncoding": "json", "cursorPath": "data.things.pageInfo.endCursor",
                   "cursorParameter": "variables.after", "sizeParameter": "variables.first"}
FAB_RISON = {"scheme": "page-number", "queryEncoding": "rison", "pageParameter": "q.page", "sizeParameter": "q.page_size",
             "firstPage": 0}
SYNAPSE = "matrix-synapse 1.163 admin API (Twisted, SQLite) /_synapse/admin/v2/users"
EVE_PEOPLE, TASTYPIE_THING, DATASETTE_TABLE = "/api/v1/people", "/tastypie/v1/thing/", "/things/things.json"


def case(name, server, label, truth, upstream, pagination, items=None, expect_error=None, **extra):
    route = {"name": name, "upstream": upstream, "pagination": pagination}
    if items is not None:
        route["items"] = items
    route.update(extra)
    found = {"name": name, "server": server, "label": label, "truth": TRUTH[truth], "route": route}
    if expect_error:
        # PASS means PageProxy refused with this code: the honest answer where the page cannot say how it numbers.
        found["expect_error"] = expect_error
    return found


def auto(name, server, label, truth, upstream, **extra):
    return case(name, server, label, truth, upstream, {"scheme": "auto"}, **extra)


CASES = [
    # Django REST Framework's three pagination classes.
    case("drf-pages", "django", DRF + " PageNumberPagination", "drf-pages", "/api/pages/",
         {"scheme": "next-url", "nextPath": "next"}, "results"),
    case("drf-pages-numbered", "django", DRF + " PageNumberPagination", "drf-pages", "/api/pages/",
         {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100}, "results"),
    case("drf-pages-total", "django", DRF + " PageNumberPagination", "drf-pages", "/api/pages/",
         {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100, "totalItemsPath": "count"}, "results"),
    case("drf-pages-noslash", "django", DRF + " PageNumberPagination", "drf-pages", "/api/pages",
         {"scheme": "next-url", "nextPath": "next"}, "results"),
    case("drf-offset", "django", DRF + " LimitOffsetPagination", "drf-offset", "/api/offset/",
         {"scheme": "offset", "limit": 100, "totalItemsPath": "count"}, "results"),
    case("drf-offset-next", "django", DRF + " LimitOffsetPagination", "drf-offset", "/api/offset/",
         {"scheme": "next-url", "nextPath": "next"}, "results"),
    case("drf-cursor", "django", DRF + " CursorPagination", "drf-cursor", "/api/cursor/",
         {"scheme": "next-url", "nextPath": "next"}, "results"),
    # next-url with the count: the pages the next link numbers are fetched concurrently (issue 12, item 7).
    case("drf-pages-count", "django", DRF + " PageNumberPagination", "drf-pages", "/api/pages/",
         {"scheme": "next-url", "nextPath": "next", "totalItemsPath": "count"}, "results"),
    case("drf-offset-count", "django", DRF + " LimitOffsetPagination", "drf-offset", "/api/offset/",
         {"scheme": "next-url", "nextPath": "next", "totalItemsPath": "count"}, "results"),
    # djangorestframework-jsonapi.
    case("jsonapi", "django", JSONAPI, "jsonapi", "/jsonapi/things/",
         {"scheme": "next-url", "nextPath": "links.next"}, "data"),
    case("jsonapi-accept", "django", JSONAPI, "jsonapi", "/jsonapi/things/",
         {"scheme": "next-url", "nextPath": "links.next"}, "data", headers={"Accept": "application/vnd.api+json"}),
    case("jsonapi-count", "django", JSONAPI, "jsonapi", "/jsonapi/things/",
         {"scheme": "next-url", "nextPath": "links.next", "totalItemsPath": "meta.pagination.count"}, "data"),
    # fastapi-pagination.
    case("fastapi-page", "fastapi", FASTAPI + " Page", "fastapi-page", "/page",
         {"scheme": "page-number", "sizeParameter": "size", "pageSize": 100, "totalPagesPath": "pages"}, "items"),
    case("fastapi-links", "fastapi", FASTAPI + " links.Page", "fastapi-links", "/links?size=100",
         {"scheme": "next-url", "nextPath": "links.next"}, "items"),
    case("fastapi-offset", "fastapi", FASTAPI + " LimitOffsetPage", "fastapi-offset", "/offset",
         {"scheme": "offset", "limit": 100, "totalItemsPath": "total"}, "items"),
    case("fastapi-cursor", "fastapi", FASTAPI + " CursorPage", "fastapi-cursor", "/cursor",
         {"scheme": "cursor", "cursorPath": "next_page", "cursorParameter": "cursor", "sizeParameter": "size",
          "pageSize": 100}, "items"),
    # flask-smorest: a bare array, the pagination in a JSON header (X-Pagination); page_size at most 100.
    case("smorest-pages", "smorest", SMOREST + " @blp.paginate()", "smorest", "/things/",
         {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100}),
    case("smorest-header-total", "smorest", SMOREST + " @blp.paginate()", "smorest", "/things/",
         {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100,
          "totalPagesHeader": "X-Pagination", "totalPagesHeaderPath": "total_pages"}),
    case("smorest-items-header", "smorest", SMOREST + " @blp.paginate()", "smorest", "/things/",
         {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100,
          "totalItemsHeader": "X-Pagination", "totalItemsHeaderPath": "total"}),
    case("smorest-next-header", "smorest", SMOREST + " @blp.paginate()", "smorest", "/things/",
         {"scheme": "next-page-header", "nextPageHeader": "X-Pagination", "nextPageHeaderPath": "next_page",
          "totalPagesHeader": "X-Pagination", "totalPagesHeaderPath": "total_pages", "sizeParameter": "page_size",
          "pageSize": 100}),
    # django-ninja: {"items": [...], "count": N}, the count after the items, no next link, JSON with spaces.
    case("ninja-offset", "django", NINJA + " LimitOffsetPagination", "ninja-offset", "/ninja/offset",
         {"scheme": "offset", "limit": 100, "totalItemsPath": "count"}, "items"),
    case("ninja-pages", "django", NINJA + " PageNumberPagination", "ninja-pages", "/ninja/pages",
         {"scheme": "page-number", "pageSize": 100, "sizeParameter": "page_size", "totalItemsPath": "count"}, "items"),
    case("ninja-pages-nototal", "django", NINJA + " PageNumberPagination", "ninja-pages", "/ninja/pages",
         {"scheme": "page-number", "pageSize": 100, "sizeParameter": "page_size"}, "items"),
    # Litestar's ClassicPagination, OffsetPagination and CursorPagination (the handlers' parameters as in its docs).
    case("litestar-classic", "litestar", LITESTAR + " ClassicPagination", "litestar-classic", "/classic",
         {"scheme": "page-number", "pageParameter": "current_page", "sizeParameter": "page_size", "pageSize": 100,
          "totalPagesPath": "total_pages"}, "items"),
    case("litestar-offset", "litestar", LITESTAR + " OffsetPagination", "litestar-offset", "/offset",
         {"scheme": "offset", "limit": 100, "totalItemsPath": "total"}, "items"),
    case("litestar-cursor", "litestar", LITESTAR + " CursorPagination", "litestar-cursor", "/cursor",
         {"scheme": "cursor", "cursorPath": "cursor", "cursorParameter": "cursor", "sizeParameter": "results_per_page",
          "pageSize": 100}, "items"),
    # Eve: {"_items", "_links": {"next": {"href": "people?max_results=100&page=2"}}, "_meta": {"page", "max_results",
    # "total"}}, the hrefs relative to the request's directory (no leading slash), X-Total-Count too.
    case("eve-next", "eve", EVE, "eve", EVE_PEOPLE + "?max_results=100",
         {"scheme": "next-url", "nextPath": "_links.next.href"}, "_items"),
    case("eve-next-total", "eve", EVE, "eve", EVE_PEOPLE + "?max_results=100",
         {"scheme": "next-url", "nextPath": "_links.next.href", "totalItemsPath": "_meta.total"}, "_items"),
    case("eve-pages", "eve", EVE, "eve", EVE_PEOPLE,
         {"scheme": "page-number", "sizeParameter": "max_results", "pageSize": 100, "totalItemsPath": "_meta.total"},
         "_items"),
    case("eve-pages-nototal", "eve", EVE, "eve", EVE_PEOPLE,
         {"scheme": "page-number", "sizeParameter": "max_results", "pageSize": 100}, "_items"),
    # django-tastypie: {"meta": {"limit", "next": "/tastypie/v1/thing/?limit=100&offset=100", "offset", "previous",
    # "total_count"}, "objects"}; ?limit=0 is "all" (up to its max_limit, 1000).
    case("tastypie-next", "django", TASTYPIE, "tastypie", TASTYPIE_THING,
         {"scheme": "next-url", "nextPath": "meta.next"}, "objects"),
    case("tastypie-next-total", "django", TASTYPIE, "tastypie", TASTYPIE_THING,
         {"scheme": "next-url", "nextPath": "meta.next", "totalItemsPath": "meta.total_count"}, "objects"),
    case("tastypie-offset", "django", TASTYPIE, "tastypie", TASTYPIE_THING,
         {"scheme": "offset", "limit": 100, "totalItemsPath": "meta.total_count"}, "objects"),
    # Datasette's table JSON: keyset pages, an opaque "next" token and an absolute "next_url", a Link header too;
    # rows as arrays by default (with "columns"), objects with _shape=objects, a bare array with _shape=array.
    case("datasette-next-url", "datasette", DATASETTE + " ?_shape=objects", "datasette-objects",
         DATASETTE_TABLE + "?_shape=objects", {"scheme": "next-url", "nextPath": "next_url"}, "rows"),
    case("datasette-rows", "datasette", DATASETTE + " default shape", "datasette-rows", DATASETTE_TABLE,
         {"scheme": "next-url", "nextPath": "next_url"}, "rows"),
    case("datasette-cursor", "datasette", DATASETTE + " ?_shape=objects", "datasette-objects",
         DATASETTE_TABLE + "?_shape=objects",
         {"scheme": "cursor", "cursorPath": "next", "cursorParameter": "_next", "sizeParameter": "_size",
          "pageSize": 100}, "rows"),
    case("datasette-array-link", "datasette", DATASETTE + " ?_shape=array", "datasette-array",
         DATASETTE_TABLE + "?_shape=array", {"scheme": "link-header"}),
    # drf-link-header-pagination: a bare array, RFC 8288 `Link` with rel prev/next/first/last (absolute URLs).
    case("link-pages", "django", LINK + " LinkHeaderPagination", "link-pages", "/link/pages/", {"scheme": "link-header"}),
    case("link-pages-size", "django", LINK + " LinkHeaderPagination", "link-pages-50", "/link/pages/",
         {"scheme": "link-header", "sizeParameter": "page_size", "pageSize": 50}),
    case("link-offset", "django", LINK + " LinkHeaderLimitOffsetPagination", "link-offset", "/link/offset/",
         {"scheme": "link-header"}),
    case("link-cursor", "django", LINK + " LinkHeaderCursorPagination", "link-cursor", "/link/cursor/",
         {"scheme": "link-header"}),
    # Kinto: {"data": [...]}, the next page's absolute URL only in a `Next-Page` header (a fresh `_token` each time).
    case("kinto-next-page", "kinto", KINTO, "kinto", KINTO_RECORDS + "?_limit=100",
         {"scheme": "next-page-header", "nextPageHeader": "Next-Page"}, "data"),
    case("kinto-sorted", "kinto", KINTO + " ?_since=&_sort=", "kinto-sorted", KINTO_RECORDS + "?_since=0&_sort=n&_limit=100",
         {"scheme": "next-page-header", "nextPageHeader": "Next-Page"}, "data"),
    # Wagtail API v2: {"meta": {"total_count"}, "items"}, ?offset=&limit= (at most 20 by default), no link.
    case("wagtail-offset", "wagtail", WAGTAIL, "wagtail", WAGTAIL_PAGES,
         {"scheme": "offset", "limit": 20, "totalItemsPath": "meta.total_count"}, "items"),
    case("wagtail-offset-nototal", "wagtail", WAGTAIL, "wagtail", WAGTAIL_PAGES, {"scheme": "offset", "limit": 20}, "items"),
    # localstripe: {"data": [...], "has_more", "object": "list", "total_count", "url"} (indented, sorted keys, so
    # has_more after the items; each customer holds lists of its own with their own has_more), ?limit= (10 by
    # default), ?starting_after=<the last customer's id>.
    case("stripe-has-more", "localstripe", STRIPE, "stripe", CUSTOMERS, {"scheme": "has-more", "pageSize": 100}, "data",
         headers=STRIPE_AUTH),
    case("stripe-has-more-default", "localstripe", STRIPE + " default limit", "stripe-default", CUSTOMERS,
         {"scheme": "has-more"}, "data", headers=STRIPE_AUTH),
    # MLflow: AIP-158 page tokens, ?max_results=&page_token= -> "next_page_token" (base64 of {"offset": N}), absent at
    # the end; max_results required on a GET; an empty result is `{}`.
    case("mlflow-token", "mlflow", MLFLOW, "mlflow", EXPERIMENTS + "?max_results=100",
         {"scheme": "cursor", "cursorPath": "next_page_token", "cursorParameter": "page_token"}, "experiments"),
    case("mlflow-token-size", "mlflow", MLFLOW, "mlflow", EXPERIMENTS,
         {"scheme": "cursor", "cursorPath": "next_page_token", "cursorParameter": "page_token",
          "sizeParameter": "max_results", "pageSize": 100}, "experiments"),
    case("mlflow-empty", "mlflow", MLFLOW + " a filter no experiment matches", "mlflow-empty", NO_EXPERIMENT,
         {"scheme": "cursor", "cursorPath": "next_page_token", "cursorParameter": "page_token"}, "experiments"),
    # Mastodon: a bare array, Link next/prev by max_id/min_id (the page's own oldest and newest ids); the last full
    # page links on to an empty one; `private, no-store`.
    case("mastodon-link", "mastodon", MASTODON, "mastodon", MASTODON_TAG + "?limit=10", {"scheme": "link-header"}),
    case("mastodon-link-size", "mastodon", MASTODON, "mastodon", MASTODON_TAG,
         {"scheme": "link-header", "sizeParameter": "limit", "pageSize": 10}),
    # Recorded api.github.com traffic.
    case("github-comments", "github", GITHUB + " issue comments", "github-comments", COMMENTS,
         {"scheme": "link-header", "pageSize": 3}, headers=GITHUB_ACCEPT),
    case("github-comments-lookahead", "github", GITHUB + " issue comments", "github-comments", COMMENTS,
         {"scheme": "link-header", "pageSize": 3, "lookahead": 2}, headers=GITHUB_ACCEPT),
    case("github-artifacts", "github", GITHUB + " artifacts", "github-artifacts", ARTIFACTS,
         {"scheme": "link-header"}, "artifacts", headers=GITHUB_ACCEPT),
    case("github-artifacts-lookahead", "github", GITHUB + " artifacts", "github-artifacts", ARTIFACTS,
         {"scheme": "link-header", "lookahead": 3}, "artifacts", concurrency=4, headers=GITHUB_ACCEPT),
    case("github-search", "github", GITHUB + " code search", "github-search", SEARCH,
         {"scheme": "page-number", "pageSize": 5, "totalItemsPath": "total_count"}, "items", headers=GITHUB_ACCEPT),
    # Reddit (real19): {"kind": "Listing", "data": {"after", "before", "children": [{"kind", "data"}], "dist"}}, the
    # cursor `data.after` sent back as ?after=, null on the last page; ?limit= above 100 served as 100.
    case("reddit-cursor", "reddit", REDDIT + " /user/spez top", "reddit-top", REDDIT_TOP,
         dict(REDDIT_CURSOR, sizeParameter="limit", pageSize=100), "data.children"),
    case("reddit-cursor-limit", "reddit", REDDIT + " /user/spez top", "reddit-top", REDDIT_TOP + "&limit=100",
         REDDIT_CURSOR, "data.children"),
    # As PRAW asks: ?limit=1024, of which Reddit serves 100 a page.
    case("reddit-cursor-1024", "reddit", REDDIT + " /user/spez top, limit=1024", "reddit-top", REDDIT_TOP + "&limit=1024",
         REDDIT_CURSOR, "data.children"),
    case("reddit-cursor-before", "reddit", REDDIT + " /user/spez top, before=", "reddit-top-before",
         REDDIT_TOP + "&before=3cxedn", dict(REDDIT_CURSOR, sizeParameter="limit", pageSize=100), "data.children"),
    # A live thread: two full pages, the second still naming an `after`, then an empty page with `after: null`.
    case("reddit-live", "reddit", REDDIT + " live thread", "reddit-live", REDDIT_LIVE,
         dict(REDDIT_CURSOR, sizeParameter="limit", pageSize=100), "data.children"),
    # Zendesk (real19): {"<list>": [...], "meta": {"has_more", "after_cursor", "before_cursor"}, "links": {"prev",
    # "next"}}; the last page says has_more false and still links on (to an empty page with nulls).
    case("zendesk-next", "zendesk", ZENDESK + " groups", "zendesk-groups", ZENDESK_GROUPS + "?page[size]=1", ZENDESK_NEXT,
         "groups"),
    case("zendesk-next-100", "zendesk", ZENDESK + " groups, one page", "zendesk-groups-100",
         ZENDESK_GROUPS + "?page[size]=100", ZENDESK_NEXT, "groups"),
    case("zendesk-cursor", "zendesk", ZENDESK + " groups", "zendesk-groups", ZENDESK_GROUPS,
         dict(ZENDESK_CURSOR, pageSize=1), "groups"),
    case("zendesk-cursor-macros", "zendesk", ZENDESK + " macros", "zendesk-macros", ZENDESK_MACROS,
         dict(ZENDESK_CURSOR, pageSize=1), "macros"),
    case("zendesk-next-tags", "zendesk", ZENDESK + " tags", "zendesk-tags", ZENDESK_TAGS + "?page[size]=1", ZENDESK_NEXT,
         "tags"),
    case("zendesk-next-activities", "zendesk", ZENDESK + " activities (side-loads actors, users)", "zendesk-activities",
         ZENDESK_ACTIVITIES + "?page[size]=1", ZENDESK_NEXT, "activities"),
    # Notion (real19): {"object": "list", "results", "next_cursor", "has_more"}, the cursor back as ?start_cursor=.
    case("notion-cursor", "notion", NOTION, "notion", NOTION_CHILDREN,
         {"scheme": "cursor", "cursorPath": "next_cursor", "cursorParameter": "start_cursor", "sizeParameter": "page_size",
          "pageSize": 2}, "results"),
    # JupyterHub: with `Accept: application/jupyterhub-pagination+json`, {"items": [...], "_pagination": {"offset",
    # "limit", "total", "next": {"offset", "limit", "url"} or null}}; ?offset=&limit= (50 by default, a limit above
    # 200 read as 200 without a word); `json.dumps` with spaces and ASCII escapes; Tornado's ETag, no Cache-Control.
    case("jupyterhub-next", "jupyterhub", JUPYTERHUB + " /groups", "jupyterhub-groups", GROUPS,
         {"scheme": "next-url", "nextPath": "_pagination.next.url"}, "items", headers=JUPYTERHUB_HEADERS),
    case("jupyterhub-next-total", "jupyterhub", JUPYTERHUB + " /groups", "jupyterhub-groups", GROUPS,
         {"scheme": "next-url", "nextPath": "_pagination.next.url", "totalItemsPath": "_pagination.total"}, "items",
         headers=JUPYTERHUB_HEADERS),
    case("jupyterhub-offset", "jupyterhub", JUPYTERHUB + " /groups", "jupyterhub-groups", GROUPS,
         {"scheme": "offset", "limit": 200, "totalItemsPath": "_pagination.total"}, "items", headers=JUPYTERHUB_HEADERS),
    # A limit above its maximum is read as 200: the route asks 500 a page and gets 200.
    case("jupyterhub-offset-capped", "jupyterhub", JUPYTERHUB + " /groups, limit above its 200", "jupyterhub-groups",
         GROUPS, {"scheme": "offset", "limit": 500, "totalItemsPath": "_pagination.total"}, "items",
         headers=JUPYTERHUB_HEADERS),
    case("jupyterhub-users", "jupyterhub", JUPYTERHUB + " /users", "jupyterhub-users", USERS + "?limit=100",
         {"scheme": "next-url", "nextPath": "_pagination.next.url", "totalItemsPath": "_pagination.total"}, "items",
         headers=JUPYTERHUB_HEADERS),
    # Piccolo API: {"rows": [...]} and nothing else (no link, no count, no page number), ?__page=&__page_size= (15 by
    # default, at most 1000), newest first; with ?__range_header=true a `Content-Range: things 0-99/1000` header.
    case("piccolo-pages", "piccolo", PICCOLO, "piccolo", PICCOLO_THINGS,
         {"scheme": "page-number", "pageParameter": "__page", "sizeParameter": "__page_size", "pageSize": 100}, "rows"),
    case("piccolo-range", "piccolo", PICCOLO + " ?__range_header=true", "piccolo-range",
         PICCOLO_THINGS + "?__range_header=true",
         {"scheme": "page-number", "pageParameter": "__page", "sizeParameter": "__page_size", "pageSize": 100,
          "totalItemsHeader": "Content-Range"}, "rows"),
    # Mailman 3: {"entries": [...], "http_etag", "start", "total_size"}, ?count=&page= (both or neither: neither is
    # every member on one page), no link; a page past the end leaves "entries" out; 128-bit integer member ids.
    case("mailman-pages", "mailman", MAILMAN, "mailman", MEMBERS,
         {"scheme": "page-number", "sizeParameter": "count", "pageSize": 100, "totalItemsPath": "total_size"}, "entries",
         headers=MAILMAN_AUTH),
    # Flask-AppBuilder: {"count": 1000, …, "ids": [...], …, "result": [...]}, no link; the page and its size only
    # inside a Rison `q` (`?q=(page:0,page_size:100)`, from 0, 20 by default, at most 100), which no route's page or
    # offset parameter reaches: FAB ignores `page=1` and answers the first page again. Such a route is refused at its
    # second page (real14: before, a 200 of the first page ten times over).
    case("fab-pages", "fab", FAB, "fab", FAB_THINGS + "?q=(page_size:100)",
         {"scheme": "page-number", "firstPage": 0, "totalItemsPath": "count"}, "result",
         expect_error="pagination_stuck"),
    case("fab-offset", "fab", FAB, "fab", FAB_THINGS + "?q=(page_size:100)",
         {"scheme": "offset", "limit": 100, "totalItemsPath": "count"}, "result", expect_error="pagination_stuck"),
    # real15: a route whose page parameter is a member of the Rison q (`"queryEncoding": "rison"`, `q.page`) walks
    # it, the route's other q members (a filter, an order) kept in every page's q.
    case("fab-rison", "fab", FAB, "fab", FAB_THINGS + "?q=(page_size:100)", FAB_RISON | {"totalItemsPath": "count"}, "result"),
    case("fab-rison-open", "fab", FAB + " no total", "fab", FAB_THINGS + "?q=(page_size:100)", FAB_RISON, "result"),
    case("fab-rison-default", "fab", FAB + " default page_size", "fab-default", FAB_THINGS,
         FAB_RISON | {"totalItemsPath": "count"}, "result"),
    case("fab-rison-filter", "fab", FAB + " filter and order in q", "fab-filter",
         FAB_THINGS + "?q=(" + FAB_FILTER + ",page_size:100)", FAB_RISON | {"totalItemsPath": "count"}, "result"),
    # djangorestframework-datatables (real15): {"recordsTotal", "recordsFiltered", "data": [...], "draw"} with
    # ?format=datatables&start=&length=; `start` an item offset (its page-number class reads it as the page
    # start // length + 1), the page past the end a 404 whose "data" is an object.
    case("datatables-pages", "django", DATATABLES + " DatatablesPageNumberPagination", "datatables-pages", DATATABLES_PAGES,
         {"scheme": "offset", "offsetParameter": "start", "limitParameter": "length", "limit": 100,
          "totalItemsPath": "recordsFiltered"}, "data"),
    case("datatables-pages-open", "django", DATATABLES + " DatatablesPageNumberPagination no total", "datatables-pages",
         DATATABLES_PAGES, {"scheme": "offset", "offsetParameter": "start", "limitParameter": "length", "limit": 100}, "data"),
    case("datatables-offset", "django", DATATABLES + " DatatablesLimitOffsetPagination", "datatables-offset",
         DATATABLES_OFFSET, {"scheme": "offset", "offsetParameter": "start", "limitParameter": "length", "limit": 100,
                             "totalItemsPath": "recordsFiltered"}, "data"),
    # graphene-django (real15): a Relay connection, GraphQL over GET; the cursor (`pageInfo.endCursor`) goes back as the
    # GraphQL variable `after`, inside the JSON of `variables`: a plain `after=` parameter is not read.
    case("graphene-cursor", "graphene", GRAPHENE, "graphene", GRAPHQL_THINGS + "&variables=" + quote('{"first":100}'),
         {"scheme": "cursor", "cursorPath": "data.things.pageInfo.endCursor", "cursorParameter": "after",
          "sizeParameter": None}, "data.things.edges", expect_error="pagination_repeated_page"),
    # real15: `"queryEncoding": "json"` names the cursor and size as members of the JSON `variables`.
    case("graphene-json", "graphene", GRAPHENE, "graphene", GRAPHQL_THINGS,
         {"scheme": "cursor", "queryEncoding": "json", "cursorPath": "data.things.pageInfo.endCursor",
          "cursorParameter": "variables.after", "sizeParameter": "variables.first", "pageSize": 100}, "data.things.edges"),
    # Strawberry (real16): graphene's habit without a total; `hasNextPage: false` on the last page ends the walk there
    # (before real16 the last page's `endCursor` was followed to a page of no edges).
    case("strawberry-json", "strawberry", STRAWBERRY, "strawberry", STRAWBERRY_THINGS, dict(STRAWBERRY_JSON, pageSize=100),
         "data.things.edges"),
    case("strawberry-json-default", "strawberry", STRAWBERRY + " no first (100)", "strawberry", STRAWBERRY_THINGS,
         STRAWBERRY_JSON, "data.things.edges"),
    case("strawberry-cursor", "strawberry", STRAWBERRY, "strawberry", STRAWBERRY_THINGS + "&variables=" + quote('{"first":100}'),
         {"scheme": "cursor", "cursorPath": "data.things.pageInfo.endCursor", "cursorParameter": "after",
          "sizeParameter": None}, "data.things.edges", expect_error="pagination_repeated_page"),
    # Airflow (real16): ?limit=&offset=, {"variables": […], "total_entries"}; 50 by default, a limit above 100 read as 100.
    case("airflow-offset", "airflow", AIRFLOW, "airflow", AIRFLOW_VARIABLES,
         {"scheme": "offset", "limit": 100, "totalItemsPath": "total_entries"}, "variables"),
    case("airflow-offset-nototal", "airflow", AIRFLOW + " no total", "airflow", AIRFLOW_VARIABLES,
         {"scheme": "offset", "limit": 100}, "variables"),
    case("airflow-offset-capped", "airflow", AIRFLOW + ", limit above its 100", "airflow-500", AIRFLOW_VARIABLES,
         {"scheme": "offset", "limit": 500, "totalItemsPath": "total_entries"}, "variables"),
    # SAFRS: JSON:API {"data", "included", "jsonapi", "links": {"first", "last", "next", "prev", "self"}, "meta":
    # {"count", "limit", "total"}}, ?page[offset]=&page[limit]= (250 by default), relative links; `next` is left out
    # of the page before the one `last` names (by 300: the page at 600 has no next, 100 items follow at 900).
    case("safrs-next", "safrs", SAFRS + " page[limit]=300", "safrs", SAFRS_THINGS + "?page[limit]=300",
         {"scheme": "next-url", "nextPath": "links.next"}, "data"),
    case("safrs-next-total", "safrs", SAFRS + " page[limit]=300", "safrs", SAFRS_THINGS + "?page[limit]=300",
         {"scheme": "next-url", "nextPath": "links.next", "totalItemsPath": "meta.count"}, "data"),
    case("safrs-next-100", "safrs", SAFRS + " page[limit]=100", "safrs-100", SAFRS_THINGS + "?page[limit]=100",
         {"scheme": "next-url", "nextPath": "links.next"}, "data"),
    case("safrs-offset", "safrs", SAFRS, "safrs", SAFRS_THINGS,
         {"scheme": "offset", "offsetParameter": "page[offset]", "limitParameter": "page[limit]", "limit": 300,
          "totalItemsPath": "meta.count"}, "data"),
    # matrix-synapse's admin API: {"users": [...], "total": 1000, "next_token": "100"}, ?from=&limit= (100 by default),
    # the next offset as a string token, absent on the last page; `Cache-Control: no-cache, no-store`.
    case("synapse-cursor", "synapse", SYNAPSE, "synapse", SYNAPSE_USERS + "&from=0&limit=100",
         {"scheme": "cursor", "cursorPath": "next_token", "cursorParameter": "from"}, "users", headers=SYNAPSE_AUTH),
    case("synapse-offset", "synapse", SYNAPSE, "synapse", SYNAPSE_USERS,
         {"scheme": "offset", "offsetParameter": "from", "limitParameter": "limit", "limit": 100, "totalItemsPath": "total"},
         "users", headers=SYNAPSE_AUTH),
    # real18: servers that cap the page size below what the route asks (7 for 100), as their docs offer it: DRF's
    # LimitOffsetPagination.max_limit (its next link then says limit=7), PageNumberPagination.max_page_size (its next
    # link keeps page_size=100), drf-link-header-pagination's likewise, Tastypie's max_limit.
    case("drf-offset-capped", "django", DRF + " LimitOffsetPagination max_limit=7", "drf-offset-capped",
         "/api/offset-capped/", {"scheme": "offset", "limit": 100, "totalItemsPath": "count"}, "results"),
    case("drf-offset-capped-nototal", "django", DRF + " LimitOffsetPagination max_limit=7 no total", "drf-offset-capped",
         "/api/offset-capped/", {"scheme": "offset", "limit": 100}, "results"),
    case("drf-offset-capped-next", "django", DRF + " LimitOffsetPagination max_limit=7", "drf-offset-capped",
         "/api/offset-capped/?limit=100", {"scheme": "next-url", "nextPath": "next", "totalItemsPath": "count"}, "results"),
    case("drf-pages-capped", "django", DRF + " PageNumberPagination max_page_size=7", "drf-pages-capped",
         "/api/pages-capped/", {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100,
                                "totalItemsPath": "count"}, "results"),
    case("drf-pages-capped-nototal", "django", DRF + " PageNumberPagination max_page_size=7 no total", "drf-pages-capped",
         "/api/pages-capped/", {"scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100}, "results"),
    case("link-pages-capped", "django", LINK + " LinkHeaderPagination max_page_size=7", "link-pages-capped",
         "/link/pages-capped/", {"scheme": "link-header", "sizeParameter": "page_size", "pageSize": 100}),
    case("tastypie-offset-capped", "django", TASTYPIE + " max_limit=7", "tastypie-capped", "/tastypie/v1/capped/",
         {"scheme": "offset", "limit": 100, "totalItemsPath": "meta.total_count"}, "objects"),
    auto("auto-drf-offset-capped", "django", DRF + " LimitOffsetPagination max_limit=7", "drf-offset-capped",
         "/api/offset-capped/?limit=100"),
    auto("auto-drf-pages-capped", "django", DRF + " PageNumberPagination max_page_size=7", "drf-pages-capped",
         "/api/pages-capped/?page_size=100"),
    auto("auto-tastypie-capped", "django", TASTYPIE + " max_limit=7", "tastypie-capped", "/tastypie/v1/capped/?limit=100"),
    # scheme "auto": the same endpoints, nothing said but the URL.
    auto("auto-drf-pages", "django", DRF + " PageNumberPagination", "drf-pages", "/api/pages/"),
    auto("auto-drf-offset", "django", DRF + " LimitOffsetPagination", "drf-offset", "/api/offset/"),
    auto("auto-drf-cursor", "django", DRF + " CursorPagination", "drf-cursor", "/api/cursor/"),
    auto("auto-jsonapi", "django", JSONAPI, "jsonapi", "/jsonapi/things/"),
    auto("auto-fastapi-page", "fastapi", FASTAPI + " Page", "fastapi-page", "/page?size=100"),
    auto("auto-fastapi-links", "fastapi", FASTAPI + " links.Page", "fastapi-links", "/links?size=100"),
    auto("auto-fastapi-offset", "fastapi", FASTAPI + " LimitOffsetPage", "fastapi-offset", "/offset?limit=100"),
    auto("auto-fastapi-cursor", "fastapi", FASTAPI + " CursorPage", "fastapi-cursor", "/cursor?size=100"),
    auto("auto-smorest", "smorest", SMOREST + " @blp.paginate()", "smorest", "/things/?page_size=100"),
    auto("auto-ninja-offset", "django", NINJA + " LimitOffsetPagination", "ninja-offset", "/ninja/offset?limit=100"),
    auto("auto-ninja-pages", "django", NINJA + " PageNumberPagination", "ninja-pages", "/ninja/pages?page_size=100"),
    auto("auto-litestar-classic", "litestar", LITESTAR + " ClassicPagination", "litestar-classic",
         "/classic?page_size=100&current_page=1"),
    auto("auto-litestar-offset", "litestar", LITESTAR + " OffsetPagination", "litestar-offset", "/offset?limit=100&offset=0"),
    auto("auto-litestar-cursor", "litestar", LITESTAR + " CursorPagination", "litestar-cursor", "/cursor?results_per_page=100"),
    auto("auto-eve", "eve", EVE, "eve", EVE_PEOPLE + "?max_results=100"),
    auto("auto-eve-default", "eve", EVE + " default max_results", "eve-default", EVE_PEOPLE),
    auto("auto-tastypie", "django", TASTYPIE, "tastypie", TASTYPIE_THING),
    auto("auto-tastypie-all", "django", TASTYPIE + " ?limit=0", "tastypie-all", TASTYPIE_THING + "?limit=0"),
    auto("auto-datasette-rows", "datasette", DATASETTE + " default shape", "datasette-rows", DATASETTE_TABLE),
    auto("auto-datasette-objects", "datasette", DATASETTE + " ?_shape=objects", "datasette-objects",
         DATASETTE_TABLE + "?_shape=objects"),
    auto("auto-datasette-array", "datasette", DATASETTE + " ?_shape=array", "datasette-array",
         DATASETTE_TABLE + "?_shape=array"),
    auto("auto-datasette-max", "datasette", DATASETTE + " ?_size=max", "datasette-max",
         DATASETTE_TABLE + "?_shape=objects&_size=max"),
    auto("auto-link-pages", "django", LINK + " LinkHeaderPagination", "link-pages", "/link/pages/"),
    auto("auto-link-offset", "django", LINK + " LinkHeaderLimitOffsetPagination", "link-offset", "/link/offset/"),
    auto("auto-link-cursor", "django", LINK + " LinkHeaderCursorPagination", "link-cursor", "/link/cursor/"),
    auto("auto-kinto", "kinto", KINTO, "kinto", KINTO_RECORDS + "?_limit=100"),
    auto("auto-kinto-sorted", "kinto", KINTO + " ?_since=&_sort=", "kinto-sorted", KINTO_RECORDS + "?_since=0&_sort=n&_limit=100"),
    auto("auto-kinto-unpaged", "kinto", KINTO + " no _limit", "kinto-unpaged", KINTO_RECORDS),
    # No ?limit= in the URL: {"meta": {"total_count": 1000}, "items": [20 items]} says nothing of how pages are
    # numbered (offset or page), so auto refuses rather than guess (a wrong guess would repeat pages silently).
    auto("auto-wagtail", "wagtail", WAGTAIL, "wagtail", WAGTAIL_PAGES, expect_error="pagination_not_detected"),
    auto("auto-wagtail-limit", "wagtail", WAGTAIL + " ?limit=20", "wagtail-limit", WAGTAIL_PAGES + "?limit=20"),
    auto("auto-stripe", "localstripe", STRIPE, "stripe", CUSTOMERS + "?limit=100", headers=STRIPE_AUTH),
    auto("auto-stripe-default", "localstripe", STRIPE + " default limit", "stripe-default", CUSTOMERS, headers=STRIPE_AUTH),
    auto("auto-mlflow", "mlflow", MLFLOW, "mlflow", EXPERIMENTS + "?max_results=100"),
    auto("auto-mlflow-1000", "mlflow", MLFLOW + " ?max_results=1000", "mlflow-1000", EXPERIMENTS + "?max_results=1000"),
    # `{}` (an object with no member at all) is a list of no items under auto (loose13): protobuf's JSON mapping
    # leaves an empty list out, so MLflow answers a search that matches nothing so.
    auto("auto-mlflow-empty", "mlflow", MLFLOW + " a filter no experiment matches", "mlflow-empty", NO_EXPERIMENT),
    auto("auto-mastodon", "mastodon", MASTODON, "mastodon", MASTODON_TAG + "?limit=10"),
    auto("auto-jupyterhub", "jupyterhub", JUPYTERHUB + " /groups", "jupyterhub-groups", GROUPS,
         headers=JUPYTERHUB_HEADERS),
    auto("auto-jupyterhub-users", "jupyterhub", JUPYTERHUB + " /users", "jupyterhub-users", USERS + "?limit=100",
         headers=JUPYTERHUB_HEADERS),
    auto("auto-piccolo-range", "piccolo", PICCOLO + " ?__range_header=true", "piccolo-range",
         PICCOLO_THINGS + "?__page_size=100&__range_header=true"),
    auto("auto-mailman", "mailman", MAILMAN, "mailman", MEMBERS + "?count=100&page=1", headers=MAILMAN_AUTH),
    auto("auto-mailman-all", "mailman", MAILMAN + " no count", "mailman-all", MEMBERS, headers=MAILMAN_AUTH),
    auto("auto-fab", "fab", FAB, "fab", FAB_THINGS + "?q=(page:0,page_size:100)",
         expect_error="pagination_not_detected"),
    auto("auto-fab-default", "fab", FAB + " no q", "fab-default", FAB_THINGS, expect_error="pagination_not_detected"),
    auto("auto-datatables", "django", DATATABLES + " start=0&length=100", "datatables-pages",
         DATATABLES_PAGES + "&start=0&length=100"),
    # Without ?start=&length= nothing on DataTables' page says how it numbers: refused, not answered as one page.
    auto("auto-datatables-default", "django", DATATABLES + " no start", "datatables-pages-default", DATATABLES_PAGES,
         expect_error="pagination_not_detected"),
    # The edges are two objects deep (data.things.edges), and the cursor goes back inside `variables`: refused.
    auto("auto-graphene", "graphene", GRAPHENE, "graphene", GRAPHQL_THINGS + "&variables=" + quote('{"first":100}'),
         expect_error="pagination_not_detected"),
    # real16: a Relay connection that says more follow is refused naming the route's `queryEncoding` pagination, also
    # where the route names the items (before: 100 of 1,000 under a 200); one that ends on its page is the answer.
    auto("auto-strawberry", "strawberry", STRAWBERRY, "strawberry", STRAWBERRY_THINGS + "&variables=" + quote('{"first":100}'),
         expect_error="pagination_not_detected"),
    auto("auto-strawberry-items", "strawberry", STRAWBERRY + " items named", "strawberry",
         STRAWBERRY_THINGS + "&variables=" + quote('{"first":100}'), items="data.things.edges",
         expect_error="pagination_not_detected"),
    auto("auto-strawberry-last", "strawberry", STRAWBERRY + " the last 100", "strawberry-last", STRAWBERRY_LAST),
    auto("auto-graphene-items", "graphene", GRAPHENE + " items named", "graphene",
         GRAPHQL_THINGS + "&variables=" + quote('{"first":100}'), items="data.things.edges",
         expect_error="pagination_not_detected"),
    auto("auto-airflow", "airflow", AIRFLOW + " limit=100", "airflow", AIRFLOW_VARIABLES + "?limit=100"),
    auto("auto-airflow-capped", "airflow", AIRFLOW + " limit=500", "airflow-500", AIRFLOW_VARIABLES + "?limit=500"),
    # No ?limit=: nothing on Airflow's page says how it numbers: refused, not answered as one page of 50.
    auto("auto-airflow-default", "airflow", AIRFLOW + " no limit", "airflow-default", AIRFLOW_VARIABLES,
         expect_error="pagination_not_detected"),
    auto("auto-safrs", "safrs", SAFRS + " page[limit]=300", "safrs", SAFRS_THINGS + "?page[limit]=300"),
    auto("auto-safrs-default", "safrs", SAFRS + " default page[limit]", "safrs-default", SAFRS_THINGS),
    auto("auto-synapse", "synapse", SYNAPSE, "synapse", SYNAPSE_USERS + "&from=0&limit=100", headers=SYNAPSE_AUTH),
    auto("auto-synapse-default", "synapse", SYNAPSE + " default limit", "synapse-default", SYNAPSE_USERS,
         headers=SYNAPSE_AUTH),
    auto("auto-github-comments", "github", GITHUB + " issue comments", "github-comments", COMMENTS + "?per_page=3",
         headers=GITHUB_ACCEPT),
    auto("auto-github-artifacts", "github", GITHUB + " artifacts", "github-artifacts", ARTIFACTS, headers=GITHUB_ACCEPT),
    # Reddit (real19): the cursor `data.after` is at none of auto's cursor paths, the items at `data.children`.
    auto("auto-reddit", "reddit", REDDIT + " /user/spez top", "reddit-top", REDDIT_TOP + "&limit=100"),
    auto("auto-reddit-items", "reddit", REDDIT + " /user/spez top, items named", "reddit-top", REDDIT_TOP + "&limit=100",
         items="data.children"),
    auto("auto-reddit-live", "reddit", REDDIT + " live thread", "reddit-live", REDDIT_LIVE + "&limit=100"),
    # Zendesk (real19): `links.next` is a URL (next-url); activities' items beside side-loaded `actors` and `users`.
    auto("auto-zendesk", "zendesk", ZENDESK + " groups", "zendesk-groups", ZENDESK_GROUPS + "?page[size]=1"),
    auto("auto-zendesk-100", "zendesk", ZENDESK + " groups, one page", "zendesk-groups-100", ZENDESK_GROUPS + "?page[size]=100"),
    auto("auto-zendesk-macros", "zendesk", ZENDESK + " macros", "zendesk-macros", ZENDESK_MACROS + "?page[size]=1"),
    auto("auto-zendesk-activities", "zendesk", ZENDESK + " activities (side-loads actors, users)", "zendesk-activities",
         ZENDESK_ACTIVITIES + "?page[size]=1"),
    # Notion (real19): auto sends `next_cursor` back as `cursor` (Slack's name); Notion reads `start_cursor`.
    auto("auto-notion", "notion", NOTION, "notion", NOTION_CHILDREN + "?page_size=2"),
    auto("auto-github-search", "github", GITHUB + " code search", "github-search", SEARCH + "&per_page=5",
         headers=GITHUB_ACCEPT),
]


# real18: windows, caps and fields (windows.py): each base case above asked again with controls in the query, its
# answer compared with the truth's items sliced (README "Asking for less") and its headers checked.
FIELDS = {"jsonapi-count": ["id", "attributes.name"], "strawberry-json": ["node.id", "node.name"],
          "graphene-json": ["node.id", "node.name"], "reddit-cursor": ["kind", "data.name"]}
WINDOWED = {
    "standard": ["drf-offset", "drf-pages-total", "fastapi-offset", "fastapi-page", "jsonapi-count",
                 "drf-offset-capped", "drf-pages-capped", "drf-pages-capped-nototal", "link-pages-capped",
                 "tastypie-offset-capped"],
    "short": ["drf-cursor", "drf-pages-count", "ninja-pages", "fastapi-cursor", "link-pages", "strawberry-json",
              "graphene-json", "drf-offset-capped-nototal", "drf-offset-capped-next", "auto-drf-offset",
              "auto-drf-offset-capped", "auto-drf-pages-capped", "auto-tastypie-capped", "reddit-cursor"],
}


def windowed(base, tag, window):
    import copy, windows
    found = copy.deepcopy(next(c for c in CASES if c["name"] == base))
    found["name"] = f"{base}~{tag}"
    found["window"], found["query"] = window, windows.query(window)
    return found


def _window_cases():
    import windows
    found = []
    for family, bases in WINDOWED.items():
        for base in bases:
            fields = FIELDS.get(base, ["id", "note"])
            variants = [(t, w) for t, w in windows.STANDARD if family == "standard" or t in windows.SHORT]
            variants += [("f-o40-l3", {"offset": 40, "limit": 3, "fields": fields}),
                         ("f-mi30", {"max_items": 30, "fields": fields})]
            found += [windowed(base, tag, window) for tag, window in variants]
    return found


CASES += _window_cases()


# real20: windows on the servers and replays that had none. The 1000-item servers are asked windows.STANDARD (an offset
# route of each) or windows.SHORT; the replays, whose lists are short, windows.SMALL; each with two field selections.
FIELDS20 = {
    "wagtail-offset": ["id", "meta.slug"], "wagtail-offset-nototal": ["id", "meta.slug"],
    "datasette-array-link": ["id", "note"], "eve-next-total": ["_id", "name"], "eve-pages": ["_id", "name"],
    "kinto-next-page": ["id", "name"], "kinto-sorted": ["id", "name"], "auto-kinto": ["id", "name"],
    "airflow-offset": ["key", "value"], "airflow-offset-nototal": ["key", "value"],
    "airflow-offset-capped": ["key", "value"], "auto-airflow": ["key", "value"],
    "jupyterhub-offset": ["name", "properties.note"], "jupyterhub-offset-capped": ["name", "properties.note"],
    "jupyterhub-next-total": ["name", "properties.note"], "auto-jupyterhub-users": ["name", "admin"],
    "github-comments": ["id", "user.login"], "github-artifacts": ["id", "name"], "github-search": ["name", "path"],
    "mastodon-link": ["id", "account.acct"], "zendesk-cursor": ["id", "name"], "zendesk-next": ["id", "name"],
    "notion-cursor": ["id", "type"],
}
WINDOWED20 = {
    "standard": ["wagtail-offset", "litestar-offset", "airflow-offset"],
    "short": ["wagtail-offset-nototal", "datasette-next-url", "datasette-cursor", "datasette-array-link",
              "litestar-classic", "litestar-cursor", "eve-next-total", "eve-pages", "kinto-next-page", "kinto-sorted",
              "airflow-offset-nototal", "airflow-offset-capped", "jupyterhub-offset", "jupyterhub-offset-capped",
              "jupyterhub-next-total", "auto-eve", "auto-kinto", "auto-airflow", "auto-wagtail-limit",
              "auto-jupyterhub-users"],
    "small": ["github-comments", "github-artifacts", "github-search", "mastodon-link", "zendesk-cursor", "zendesk-next",
              "notion-cursor"],
}


# The truth a base's windows are checked against, where the base's own truth walks pages of another size than the
# route asks (`_max_pages` counts the route's pages): JupyterHub's groups walked from its default 50 a page, the
# routes asking 200 (and 500, served as 200).
TRUTH.update({
    "jupyterhub-groups-200": dict(TRUTH["jupyterhub-groups"], start=GROUPS + "?limit=200"),
    "jupyterhub-groups-500": dict(TRUTH["jupyterhub-groups"], start=GROUPS + "?limit=500"),
})
WINDOW_TRUTH20 = {"jupyterhub-offset": "jupyterhub-groups-200", "jupyterhub-offset-capped": "jupyterhub-groups-500"}


def _window_cases20(only=None):
    """The window cases of WINDOWED20's bases (of those named in `only`, when given)."""
    import windows
    found = []
    for family, bases in WINDOWED20.items():
        for base in [b for b in bases if only is None or b in only]:
            fields = FIELDS20.get(base, ["id", "note"])
            if family == "small":
                variants = list(windows.SMALL) + [("f-o1-l2", {"offset": 1, "limit": 2, "fields": fields}),
                                                   ("f-mi3", {"max_items": 3, "fields": fields})]
            else:
                variants = [(t, w) for t, w in windows.STANDARD if family == "standard" or t in windows.SHORT]
                variants += [("f-o40-l3", {"offset": 40, "limit": 3, "fields": fields}),
                             ("f-mi30", {"max_items": 30, "fields": fields})]
            for tag, window in variants:
                found.append(windowed(base, tag, window))
                if base in WINDOW_TRUTH20:
                    found[-1]["truth"] = TRUTH[WINDOW_TRUTH20[base]]
    return found


CASES += _window_cases20()


# real20: MediaWiki's Action API (mediawiki_server.py, Debian's MediaWiki 1.39 on PHP's own server, SQLite): the
# continuation object, every member of which its clients send back (`{"continue": {"apcontinue": "Thing-0100",
# "continue": "-||"}}`); a route can send back one cursor, which is enough for one list module or one generator.
MEDIAWIKI = "MediaWiki 1.39 Action API (php -S, SQLite)"
MW_QUERY = "/api.php?action=query&format=json&formatversion=2"
MW_ALLPAGES, MW_GENERATOR = MW_QUERY + "&list=allpages", MW_QUERY + "&generator=allpages&prop=info"
TRUTH.update({
    "mediawiki-allpages": {"kind": "continue", "start": MW_ALLPAGES + "&aplimit=100", "continue": "continue",
                           "items": "query.allpages"},
    "mediawiki-allpages-max": {"kind": "continue", "start": MW_ALLPAGES + "&aplimit=max", "continue": "continue",
                               "items": "query.allpages"},
    "mediawiki-generator": {"kind": "continue", "start": MW_GENERATOR + "&gaplimit=100", "continue": "continue",
                            "items": "query.pages", "compact": False},
})
MW_CURSOR = {"scheme": "cursor", "cursorPath": "continue.apcontinue", "cursorParameter": "apcontinue"}
CASES += [
    case("mediawiki-cursor", "mediawiki", MEDIAWIKI + " list=allpages", "mediawiki-allpages", MW_ALLPAGES + "&aplimit=100",
         MW_CURSOR, "query.allpages"),
    case("mediawiki-cursor-size", "mediawiki", MEDIAWIKI + " list=allpages", "mediawiki-allpages", MW_ALLPAGES,
         dict(MW_CURSOR, sizeParameter="aplimit", pageSize=100), "query.allpages"),
    # `aplimit=max` is 500 for a reader (the body names no size; 1000 would be cut to 500 with a warning beside).
    case("mediawiki-cursor-max", "mediawiki", MEDIAWIKI + " list=allpages aplimit=max", "mediawiki-allpages-max",
         MW_ALLPAGES + "&aplimit=max", MW_CURSOR, "query.allpages"),
    # A generator: its own cursor `gapcontinue`, `continue` saying "gapcontinue||"; the pages are `query.pages`.
    case("mediawiki-generator", "mediawiki", MEDIAWIKI + " generator=allpages&prop=info", "mediawiki-generator",
         MW_GENERATOR + "&gaplimit=100", {"scheme": "cursor", "cursorPath": "continue.gapcontinue",
                                          "cursorParameter": "gapcontinue"}, "query.pages"),
    # fix38: auto finds the items at `query.<module>` and walks the root `continue` object as a cursor (every member
    # sent back); harness21 made these two compared with the truth (real20 had `auto-mediawiki` as an expected refusal).
    auto("auto-mediawiki", "mediawiki", MEDIAWIKI + " list=allpages", "mediawiki-allpages", MW_ALLPAGES + "&aplimit=100"),
    auto("auto-mediawiki-items", "mediawiki", MEDIAWIKI + " list=allpages, items named", "mediawiki-allpages",
         MW_ALLPAGES + "&aplimit=100", items="query.allpages"),
]
FIELDS20.update({"mediawiki-cursor": ["pageid", "title"], "mediawiki-generator": ["pageid", "title"]})
WINDOWED20["short"] += ["mediawiki-cursor", "mediawiki-generator"]
CASES += _window_cases20(only=["mediawiki-cursor", "mediawiki-generator"])


# real20: Roundup's REST API (roundup_server.py, Roundup 2.6's classic tracker, SQLite, 1000 issues): the next link
# is the first element of an array (`data.@links.next[0].uri`, a path a route writes `data.@links.next.0.uri`), the
# page parameters `@page_index`/`@page_size`, the total at `data.@total_size` and in `X-Count-Total`; the link repeats
# the request's other parameters as they came, unencoded (a filter `title="quoted" </tag>` goes on with its spaces).
ROUNDUP = "Roundup 2.6 REST API (wsgiref, SQLite) /rest/data/issue"
ROUNDUP_AUTH = {"Authorization": "Basic YWRtaW46aGFybmVzcy1yb3VuZHVw"}  # admin:harness-roundup, roundup_server.py's
ROUNDUP_ISSUES = "/harness/rest/data/issue?@fields=title"
ROUNDUP_FILTER = ROUNDUP_ISSUES + "&title=" + quote('"quoted" </tag>')  # 142 of the 1000
ROUNDUP_NEXT = {"scheme": "next-url", "nextPath": "data.@links.next.0.uri"}
ROUNDUP_PAGES = {"scheme": "page-number", "pageParameter": "@page_index", "sizeParameter": "@page_size", "pageSize": 100}
TRUTH.update({
    "roundup": {"kind": "roundup", "start": ROUNDUP_ISSUES + "&@page_size=100", "next": "data.@links.next",
                "items": "data.collection", "headers": ROUNDUP_AUTH, "compact": False},
    "roundup-filter": {"kind": "roundup", "start": ROUNDUP_FILTER + "&@page_size=20", "next": "data.@links.next",
                       "items": "data.collection", "headers": ROUNDUP_AUTH, "compact": False},
})
CASES += [
    case("roundup-next", "roundup", ROUNDUP, "roundup", ROUNDUP_ISSUES + "&@page_size=100", ROUNDUP_NEXT,
         "data.collection", headers=ROUNDUP_AUTH),
    case("roundup-next-total", "roundup", ROUNDUP, "roundup", ROUNDUP_ISSUES + "&@page_size=100",
         dict(ROUNDUP_NEXT, totalItemsPath="data.@total_size"), "data.collection", headers=ROUNDUP_AUTH),
    case("roundup-pages", "roundup", ROUNDUP, "roundup", ROUNDUP_ISSUES,
         dict(ROUNDUP_PAGES, totalItemsPath="data.@total_size"), "data.collection", headers=ROUNDUP_AUTH),
    case("roundup-pages-header", "roundup", ROUNDUP + " X-Count-Total", "roundup", ROUNDUP_ISSUES,
         dict(ROUNDUP_PAGES, totalItemsHeader="X-Count-Total"), "data.collection", headers=ROUNDUP_AUTH),
    case("roundup-pages-nototal", "roundup", ROUNDUP + " no total", "roundup", ROUNDUP_ISSUES, ROUNDUP_PAGES,
         "data.collection", headers=ROUNDUP_AUTH),
    # A filter whose value the next link repeats raw: `…&title="quoted" </tag>` (a space, quotes, angle brackets).
    case("roundup-next-filter", "roundup", ROUNDUP + " title filter", "roundup-filter", ROUNDUP_FILTER + "&@page_size=20",
         ROUNDUP_NEXT, "data.collection", headers=ROUNDUP_AUTH),
    # fix38: auto finds the items at `data.collection` and walks `data.@links.next.0.uri` as the next link (the total
    # at `data.@total_size`); harness21 made these two compared with the truth (real20 had `auto-roundup` refused).
    auto("auto-roundup", "roundup", ROUNDUP, "roundup", ROUNDUP_ISSUES + "&@page_size=100", headers=ROUNDUP_AUTH),
    auto("auto-roundup-items", "roundup", ROUNDUP + " items named", "roundup", ROUNDUP_ISSUES + "&@page_size=100",
         items="data.collection", headers=ROUNDUP_AUTH),
]
FIELDS20.update({"roundup-pages": ["id", "title"], "roundup-next-total": ["id", "title"]})
WINDOWED20["short"] += ["roundup-pages", "roundup-next-total"]
CASES += _window_cases20(only=["roundup-pages", "roundup-next-total"])
for found in CASES:
    if found["name"] == "roundup-pages~o1500-l10":
        # Roundup's `@total_size` is the page's start plus the rows from it (rest.py): a page past the end says the
        # list holds as many items as the page starts at (1500 for `@page_index=16`), a total PageProxy cannot
        # check without walking; the items (none) and the links are still checked.
        found["count_is_not_items"] = True
