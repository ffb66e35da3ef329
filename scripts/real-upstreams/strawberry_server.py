"""Strawberry GraphQL's Relay connection (`strawberry.relay.ListConnection`, as its docs write one) on its own ASGI app
(`strawberry.asgi.GraphQL`) under uvicorn, the 1000 rows in memory.

    python strawberry_server.py PORT

Route (1000 rows, `id` ascending):
  /graphql?query=…&variables=…   GraphQL over GET (`query` and `variables`, a JSON object, in the URL):
        {"data": {"things": {"edges": [{"node": {…}}, …], "pageInfo": {"hasNextPage": true, "endCursor": "…"}}}}
        (`json.dumps` with spaces). Relay's `first`/`after`, as GraphQL arguments only (in `variables` or the query
        text, never `?after=`); no `first` is 100 (`relay_max_results`), a larger one an error in a 200
        (`{"data": null, "errors": […]}`). No total: the docs' `ListConnection` has none. `hasNextPage` is exact (it
        asks one node more than `first`), so the last page says false while still naming its `endCursor`; a cursor
        past the end answers no edges and a null `endCursor`. Cursors are base64 of `arrayconnection:<index>`; node ids
        base64 of `Thing:<id>`.
"""
import sys
from collections.abc import Iterable

import strawberry
import uvicorn
from strawberry import relay
from strawberry.asgi import GraphQL

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from dataset import rows  # noqa: E402


@strawberry.type
class Thing(relay.Node):
    id: relay.NodeID[int]
    name: str
    kind: str
    price: str
    note: str | None

    @classmethod
    def resolve_nodes(cls, *, info, node_ids, required=False):
        return [THINGS_BY_ID.get(int(node_id)) for node_id in node_ids]


THINGS = [Thing(**row) for row in rows()]
THINGS_BY_ID = {thing.id: thing for thing in THINGS}


@strawberry.type
class Query:
    @relay.connection(relay.ListConnection[Thing])
    def things(self) -> Iterable[Thing]:
        return THINGS


schema = strawberry.Schema(query=Query)
app = GraphQL(schema, graphql_ide=None)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
