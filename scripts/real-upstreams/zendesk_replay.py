"""Replays recorded Zendesk Support API traffic (cursor pagination) on loopback, with Zendesk's own headers and
bodies, exactly as recorded but for `Date` (the current time) and its origins (`https://<subdomain>.zendesk.com`
becomes this server's).

    python zendesk_replay.py PORT CASSETTE_DIR

The recordings are zenpy's Betamax cassettes (tests/test_api/betamax/*.json in zenpy's repository, facetoe/zenpy
on GitHub). zenpy is GPL-3.0 and its sdist on PyPI has no tests, so they are neither downloaded by the harness nor
copied into this repository: copy them into scripts/real-upstreams/.recordings/zenpy-cassettes/ from a clone of
zenpy by hand; without them run.py skips the Zendesk cases. Recorded in 2023 against a live Zendesk account:

`GET /api/v2/groups.json?page[size]=1` (brackets sent percent-encoded) answers compact JSON
`{"groups": [1 group], "meta": {"has_more", "after_cursor", "before_cursor"}, "links": {"prev", "next"}}`: the next
page is `links.next` (an absolute URL with `page[after]=<cursor>&page[size]=1`) or `meta.after_cursor` sent back as
`page[after]`, and **the last page still names both, with `"has_more": false`** (Zendesk's clients stop on
`has_more`); a page asked past it is empty with nulls (`{"activities":[],"actors":[],"users":[],"meta":{"has_more":
false,"after_cursor":null,"before_cursor":null},"links":{"prev":null,"next":null}}`, recorded for activities).
The recorded request's host (`d3v-zenpydev`) is not the one its links name (`z3n-jteitelbaum`). Activities come with
side-loaded `actors` and `users` arrays beside the items. `cache-control: max-age=0, private, must-revalidate`, a
weak `ETag`, `x-rate-limit`/`x-rate-limit-remaining`, `rate-limit-reset`. Replayed: groups (9 pages of 1; and
`page[size]=100`, one page of 9 that says `has_more: false` and links on), macros (7 of 1), tags (3 of 1),
activities (3 of 1, then its recorded empty page).

A `page[after]` that was not recorded (the page after a last page) is answered as that recorded empty page, with the
list's own key (`{"groups":[],…}`); any other unrecorded URL 404 with Zendesk's `{"error":"InvalidEndpoint",…}`.
"""
import json, re

from replay import DROPPED, ReplayHandler, key, load_cassettes, serve

RECORDINGS = ["TestGroupCreateUpdateDelete.test_pagination.json", "TestMacrosCreateUpdateDelete.test_pagination.json",
              "TestTags.test_pagination.json", "TestActivities.test_pagination.json"]
PAST_THE_END = '{{"{name}":[],"meta":{{"has_more":false,"after_cursor":null,"before_cursor":null}},' \
               '"links":{{"prev":null,"next":null}}}}'


def load(directory):
    responses = load_cassettes(directory, RECORDINGS, json.load, interactions="http_interactions")
    for (path, _), (_, headers, _) in responses.items():
        # A list's first recorded headers, for the empty page past its end (no ETag: it is not that body's).
        Handler.headers_of.setdefault(path, [(name, value) for name, value in headers if name.lower() != "etag"])
    return responses


class Handler(ReplayHandler):
    # The recorded requests went to one subdomain, the links in the bodies name another: both become the replay's.
    recorded_origin, dropped = re.compile(rb"https://[a-z0-9-]+\.zendesk\.com"), DROPPED | {"set-cookie", "report-to", "nel"}
    headers_of = {}

    def unrecorded(self, path):
        path, query = key(path)
        listed = re.fullmatch(r"/api/v2/(\w+)\.json", path)
        if listed and path in self.headers_of and any(name == "page[after]" for name, _ in query):
            body = PAST_THE_END.format(name=listed.group(1))
            if listed.group(1) == "activities":  # its side-loads, as recorded
                body = body.replace('"activities":[],', '"activities":[],"actors":[],"users":[],')
            return 200, self.headers_of[path], body.encode()
        return 404, [("Content-Type", "application/json; charset=utf-8")], b'{"error":"InvalidEndpoint","description":"Not found"}'


if __name__ == "__main__":
    serve(Handler, load)
