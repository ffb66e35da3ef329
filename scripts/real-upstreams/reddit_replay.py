"""Replays recorded Reddit listing traffic on loopback, with Reddit's own headers and bodies, exactly as recorded but
for `Date` (the current time) and its origin (`https://oauth.reddit.com` becomes this server's).

    python reddit_replay.py PORT CASSETTE_DIR

The recordings are PRAW's test cassettes (tests/integration/cassettes/*.json in the praw sdist from PyPI, which the
harness downloads; they are not copied into this repository): Betamax JSON, recorded against oauth.reddit.com.
A Reddit listing is `{"kind": "Listing", "data": {"after", "before", "children": [{"kind": "t1", "data": {…}}, …],
"dist", "modhash"}}`: the items two objects deep (`data.children`), the cursor beside them (`data.after`, the last
item's fullname such as `t1_ct5snit`, `null` on the last page), sent back as `?after=`. No total, no link, no
`has_more`. `?limit=` above 100 is read as 100 (PRAW asks 1024 and gets 100); `raw_json=1` asks for unescaped text.
`cache-control: max-age=0, must-revalidate`, no ETag. Replayed:

- `TestListingGenerator.test_exhaust_items`: /user/spez/?sort=top&t=all, 11 pages, 1,001 items, the last page one
  item with `after: null` (2016; no `dist`).
- `TestListingGenerator.test_exhaust_items_with_before`: the same listing with `before=3cxedn` in every request,
  16 pages, 1,523 items (2018; `dist` is the page's item count).
- `TestLiveThread.test_updates`: /live/ukaeu1ik4sw5, two full pages of 100 whose second still names an `after`, then
  an empty page with `after: null` (items are `LiveUpdate`s, cursors `LiveUpdate_<uuid>`).

`limit` values of 100 and more are one key (Reddit serves at most 100); an unrecorded URL is answered 404 with
Reddit's `{"message": "Not Found", "error": 404}`.
"""
import json

from replay import DROPPED, ReplayHandler, key, load_cassettes, serve

RECORDINGS = ["TestListingGenerator.test_exhaust_items.json", "TestListingGenerator.test_exhaust_items_with_before.json",
              "TestLiveThread.test_updates.json"]
MAX_LIMIT = 100  # Reddit's cap on ?limit=


def reddit_key(target):
    path, query = key(target)
    capped = [(name, str(MAX_LIMIT) if name == "limit" and value.isdigit() and int(value) >= MAX_LIMIT else value)
              for name, value in query]
    return path, tuple(sorted(capped))


def load(directory):
    return load_cassettes(directory, RECORDINGS, json.load, keep=lambda uri: uri.startswith(Handler.recorded_origin),
                          key_of=reddit_key)


class Handler(ReplayHandler):
    recorded_origin, dropped = "https://oauth.reddit.com", DROPPED | {"set-cookie"}

    def lookup(self, path):
        return reddit_key(path)

    def unrecorded(self, path):
        return 404, [("Content-Type", "application/json; charset=UTF-8")], b'{"message": "Not Found", "error": 404}'


if __name__ == "__main__":
    serve(Handler, load)
