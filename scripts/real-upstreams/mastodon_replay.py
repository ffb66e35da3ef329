"""Replays recorded Mastodon traffic on loopback, with Mastodon's own headers and bodies, exactly as recorded but for
`Date` (the current time) and its origin (`http://localhost:3000` becomes this server's).

    python mastodon_replay.py PORT CASSETTE_DIR

The recordings are Mastodon.py's test cassettes (tests/cassettes/*.yaml in the Mastodon.py sdist from PyPI, which
the harness downloads; they are not copied into this repository): vcrpy YAML, recorded against a Mastodon
instance on localhost:3000. The one replayed walks a hashtag timeline, 10 statuses a page
(`test_fetch_remaining.yaml`, `/api/v1/timelines/tag/<tag>?limit=10`): a bare array of statuses (compact JSON, non-ASCII
written raw); `Link: <…?limit=10&max_id=<the page's oldest id>>; rel="next", <…?limit=10&min_id=<its newest id>>;
rel="prev"`, keysets named by the page's own items; **the last full page still links on, to a page that is `[]`**
with no `Link`; `Cache-Control: private, no-store`; a weak `ETag`; `X-RateLimit-Reset` as an ISO 8601 time, not
seconds. An unrecorded URL is answered 404 with Mastodon's `{"error":"Record not found"}`.
"""
import yaml

from replay import ReplayHandler, load_cassettes, serve, vcr_body

RECORDINGS = ["test_fetch_remaining.yaml"]


def load(directory):
    return load_cassettes(directory, RECORDINGS, yaml.safe_load, body=vcr_body, keep=lambda uri: "/timelines/" in uri)


class Handler(ReplayHandler):
    recorded_origin = "http://localhost:3000"

    def unrecorded(self, path):
        return 404, [("Content-Type", "application/json; charset=utf-8")], '{"error":"Record not found"}'


if __name__ == "__main__":
    serve(Handler, load)
