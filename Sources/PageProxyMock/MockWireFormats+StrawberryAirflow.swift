import PageProxyCore

/// Strawberry GraphQL's Relay connection over GET and Apache Airflow's REST API as scripts/real-upstreams found them
/// (branch real16).
extension MockWireFormats {
    /// Strawberry's `ListConnection`: graphene's connection without a total, `{"data": {"things": {"edges": [{"node":
    /// {…}}, …], "pageInfo": {"hasNextPage": …, "endCursor": "…"}}}}`, compact; `hasNextPage` exact (false on the last
    /// page, which still names its end cursor), the end cursor null on a page of no edges.
    package static func strawberry(_ window: MockWindow) -> MockResponse {
        relayConnection(window, head: #"{"data":{"things":{"edges":"#)
    }

    /// Airflow's REST API v2 lists: `{"variables": […], "total_entries": T}`, compact, no link and no page count.
    package static func airflow(_ window: MockWindow) -> MockResponse {
        .json(status: 200, body: MockJSON.envelope(#"{"variables":"#, window.itemsJSON, #","total_entries":\#(window.total)}"#))
    }
}

extension MockService {
    /// Airflow's `?limit=&offset=`: the limit the default page when absent and the largest page when above it, without
    /// a word (`[api] fallback_page_limit`, `maximum_page_limit`); an offset past the end a page of no items.
    func airflowWindow(_ context: MockContext) -> Parsed {
        guard let limit = Int(context.query.value("limit") ?? String(context.defaultPageSize)), limit >= 1 else {
            return .reply(MockErrors.badParameter(self, "limit", context.query.value("limit") ?? ""))
        }
        guard let offset = context.offset("offset") else { return .reply(MockErrors.badParameter(self, "offset", context.query.value("offset") ?? "")) }
        return .window(MockWindow(offset: min(offset, Int.max / 2), size: min(limit, context.maxPageSize), total: context.total))
    }
}

extension MockErrors {
    /// Strawberry's error in a 200: `{"data": null, "errors": [{"message", "locations", "path"}]}` (graphene keeps
    /// `data` with the field null).
    package static func strawberryError(_ message: String) -> MockResponse {
        let body = #"{"data":null,"errors":[{"message":"# + JSONText.string(message) + #","locations":[{"line":1,"column":33}],"path":["things"]}]}"#
        return .json(status: 200, body: Array(body.utf8))
    }
}
