"""Replays recorded Notion API traffic on loopback: the bodies exactly as recorded, `https://api.notion.com` becoming
this server's origin.

    python notion_replay.py PORT CASSETTE_DIR

The recordings are notion-sdk-py's vcrpy cassettes (tests/cassettes/*.yaml in its repository, ramnes/notion-sdk-py
on GitHub, MIT; its sdist on PyPI has no tests, so the harness cannot download them): copy
`test_iterate_paginated_api.yaml` into scripts/real-upstreams/.recordings/notion-cassettes/ from a clone by hand;
without it run.py skips the Notion cases. Recorded in 2026 against api.notion.com (the cassette kept only
`Content-Type` of the response headers): `GET /v1/blocks/<id>/children?page_size=2` answers compact JSON
`{"object": "list", "results": [2 blocks], "next_cursor": "<block id>", "has_more": true, "type": "block",
"block": {}, "request_id": …}`; the cursor goes back as `?start_cursor=` (not `cursor`), and the last page says
`"next_cursor": null, "has_more": false`. Three pages, 5 blocks. The test then deleted the blocks and asked the first
page again (empty): only the first answer of a URL is replayed. An unrecorded URL is answered 400 with Notion's
error shape (`{"object": "error", "status": 400, "code": "validation_error", …}`); what Notion really answers to a
parameter it does not know was not recorded.
"""
import yaml

from replay import ReplayHandler, load_cassettes, serve, vcr_body

RECORDINGS = ["test_iterate_paginated_api.yaml"]
UNRECORDED = ('{"object":"error","status":400,"code":"validation_error","message":"not recorded by the replay: '
              'notion_replay.py answers only the URLs notion-sdk-py recorded"}')


def load(directory):
    return load_cassettes(directory, RECORDINGS, yaml.safe_load, body=vcr_body)


class Handler(ReplayHandler):
    recorded_origin = "https://api.notion.com"

    def unrecorded(self, path):
        return 400, [("Content-Type", "application/json; charset=utf-8")], UNRECORDED


if __name__ == "__main__":
    serve(Handler, load)
