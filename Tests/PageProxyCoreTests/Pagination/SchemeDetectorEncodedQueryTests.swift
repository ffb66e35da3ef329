import Testing

@testable import PageProxyCore

/// `scheme: "auto"` (and `probe`, which prints the same reason) where the way on lives inside a structured query
/// parameter that only a route's `queryEncoding` walks (real16): GraphQL Relay connections and a page inside Rison `q`.
@Suite struct SchemeDetectorEncodedQueryTests {
    private func detect(_ body: String, url: String, itemsPath: String? = nil) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body), url: try #require(PageURL(string: url)), itemsPath: itemsPath.flatMap { JSONPath($0) })
    }

    /// The reason of the `notDetected` that detecting throws; nil when it detects something.
    private func refusal(_ body: String, url: String, itemsPath: String? = nil) -> String? {
        do {
            _ = try detect(body, url: url, itemsPath: itemsPath)
            return nil
        } catch {
            guard case .notDetected(_, let reason) = error as? PaginationError else { return "\(error)" }
            return reason
        }
    }

    private static func relay(more: Bool, at path: [String] = ["things"]) -> String {
        let connection = #"{"edges":[{"node":{"id":"VGhpbmc6MQ=="}},{"node":{"id":"VGhpbmc6Mg=="}}],"#
            + #""pageInfo":{"hasNextPage":\#(more),"endCursor":"YXJyYXljb25uZWN0aW9uOjE="}}"#
        return #"{"data":"# + path.reversed().reduce(connection) { #"{"\#($1)":\#($0)}"# } + "}"
    }

    private static let graphQL = "http://h/graphql?query=q&variables=%7B%22first%22%3A2%7D"

    @Test("a Relay connection that says more follow is refused naming the queryEncoding route (before: keys seen \"data\", no way out)")
    func relayRefusalNamesTheRoute() throws {
        let reason = try #require(refusal(Self.relay(more: true), url: Self.graphQL))
        for part in [#""queryEncoding": "json""#, #""cursorPath": "data.things.pageInfo.endCursor""#, #""cursorParameter": "variables.after""#,
                     #""sizeParameter": "variables.first""#, #""pageSize": 2"#, #""items": "data.things.edges""#] {
            #expect(reason.contains(part), "\(part) in \(reason)")
        }
        // Deeper under `data` (GitHub's `viewer.repositories`), and with no `variables` in the URL (no page size to name).
        let deep = try #require(refusal(Self.relay(more: true, at: ["viewer", "repositories"]), url: "http://h/graphql?query=q"))
        #expect(deep.contains(#""cursorPath": "data.viewer.repositories.pageInfo.endCursor""#), "\(deep)")
        #expect(!deep.contains("pageSize"), "\(deep)")
    }

    @Test("a Relay connection with the route's items named is refused too (before: its first page answered as the list, 200)")
    func relayWithItemsNamed() {
        #expect(refusal(Self.relay(more: true), url: Self.graphQL, itemsPath: "data.things.edges")?.contains("Relay") == true)
    }

    @Test("a Relay connection whose hasNextPage is false is the whole answer, its edges the items")
    func relayThatEnds() throws {
        let detected = try detect(Self.relay(more: false), url: Self.graphQL)
        #expect(detected.scheme == nil)
        #expect(detected.itemsPath == JSONPath("data.things.edges"))
        #expect(detected.itemCount == 2)
        // A `data` object with no connection is read as before (its `items`).
        let plain = try detect(#"{"data":{"items":[{"id":1}]}}"#, url: "http://h/x")
        #expect(plain.itemsPath == JSONPath("data.items"))
    }

    @Test("a page number inside a Rison or JSON q, beside a total, is refused naming the queryEncoding route (FAB; before: no way out)")
    func encodedPageNumber() throws {
        let body = #"{"count":1000,"result":[{"id":1},{"id":2}]}"#
        let rison = try #require(refusal(body, url: "http://h/api/v1/thing/?q=(order_column:id,page:0,page_size:2)"))
        for part in [#""scheme": "page-number""#, #""queryEncoding": "rison""#, #""pageParameter": "q.page""#, #""sizeParameter": "q.page_size""#,
                     #""firstPage": 0"#, #""totalItemsPath": "count""#] {
            #expect(rison.contains(part), "\(part) in \(rison)")
        }
        let json = try #require(refusal(body, url: "http://h/x?search=%7B%22offset%22%3A0%2C%22limit%22%3A2%7D"))
        for part in [#""scheme": "offset""#, #""queryEncoding": "json""#, #""offsetParameter": "search.offset""#, #""limitParameter": "search.limit""#] {
            #expect(json.contains(part), "\(part) in \(json)")
        }
        // Flask-AppBuilder's own page: its ids and column lists beside `result` are refused first, naming the route too
        // (real16: the harness's FAB never reached the total, so the hint must ride on that refusal).
        let fab = #"{"count":1000,"ids":[1,2],"list_columns":["name"],"order_columns":["name"],"result":[{"id":1},{"id":2}]}"#
        let both = try #require(refusal(fab, url: "http://h/api/v1/thing/?q=(page:0,page_size:2)"))
        #expect(both.contains("either may be the items") && both.contains(#""pageParameter": "q.page""#) && both.contains(#""totalItemsPath": "count""#), "\(both)")
        // A q that numbers nothing names no encoding.
        let other = try #require(refusal(body, url: "http://h/x?q=(order_column:id)"))
        #expect(!other.contains("queryEncoding"), "\(other)")
    }
}
