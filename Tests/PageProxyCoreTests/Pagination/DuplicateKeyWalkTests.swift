import Testing

@testable import PageProxyCore

/// An upstream object that repeats a key PageProxy reads (attack11 L4): the walk takes the last occurrence, as the
/// upstream's own clients do (JavaScript's `JSON.parse`, Python's `json`), on every scheme that reads a member.
@Suite struct DuplicateKeyWalkTests {
    private static func path(_ text: String) -> JSONPath { JSONPath(text) ?? .root }

    @Test("next-url: of two next members the last is followed")
    func nextURLTakesTheLast() async throws {
        let transport = FakeTransport { url in
            switch url.queryValue("page") {
            case nil: .json(#"{"next":"http://h/a?page=9","results":[{"id":1}],"next":"http://h/a?page=2"}"#)
            case "2": .json(#"{"next":null,"results":[{"id":2}]}"#)
            default: .json(#"{"next":null,"results":[{"id":9}]}"#)
            }
        }
        let items = try await PageWalker.make(.nextURLInBody(.init()), transport: transport, base: "http://h/a") { $0.itemsPath = Self.path("results") }
            .pages().flatMap(\.itemBytes)
        #expect(items == [Array(#"{"id":1}"#.utf8), Array(#"{"id":2}"#.utf8)])
        #expect(transport.requestedURLs == ["http://h/a", "http://h/a?page=2"])
    }

    @Test("cursor: of two cursors the last is sent, and a later member with the key forgets an earlier nested one")
    func cursorTakesTheLast() async throws {
        let transport = FakeTransport { url in
            switch url.queryValue("cursor") {
            case nil:
                .json(#"{"meta":{"next":"wrong"},"items":[{"id":1}],"meta":{"next":"right"}}"#)
            case "right":
                // The last `meta` has no `next`: the list ends here, whatever the first one said.
                .json(#"{"meta":{"next":"wrong"},"items":[{"id":2}],"meta":{}}"#)
            default: .json(#"{"meta":{},"items":[{"id":9}]}"#)
            }
        }
        var cursor = PaginationScheme.CursorInBody()
        cursor.cursorPath = Self.path("meta.next")
        let items = try await PageWalker.make(.cursorInBody(cursor), transport: transport, base: "http://h/a") { $0.itemsPath = Self.path("items") }
            .pages().flatMap(\.itemBytes)
        #expect(items == [Array(#"{"id":1}"#.utf8), Array(#"{"id":2}"#.utf8)])
        #expect(transport.requestedURLs == ["http://h/a", "http://h/a?cursor=right"])
    }

    @Test("has-more: the last has_more decides, and the last id of the last item is the one continued after")
    func hasMoreTakesTheLast() async throws {
        let transport = FakeTransport { url in
            switch url.queryValue("starting_after") {
            case nil: .json(#"{"has_more":false,"data":[{"id":"a","id":"b"}],"has_more":true}"#)
            case "b": .json(#"{"has_more":true,"data":[{"id":"c"}],"has_more":false}"#)
            default: .json(#"{"has_more":false,"data":[{"id":"x"}]}"#)
            }
        }
        let pages = try await PageWalker.make(.hasMore(.init()), transport: transport, base: "http://h/a") { $0.itemsPath = Self.path("data") }
            .pages()
        #expect(pages.count == 2)
        #expect(transport.requestedURLs.count == 2)
        #expect(transport.requestedURLs.last?.hasSuffix("starting_after=b") == true)
    }

    @Test("totals: of two counts the last numbers the pages")
    func totalTakesTheLast() async throws {
        let transport = FakeTransport { url in
            let offset = Int(url.queryValue("offset") ?? "0") ?? 0
            // The list ends at 20 items, as the last count says.
            let items = (offset..<min(20, offset + 10)).map { "{\"id\":\($0)}" }.joined(separator: ",")
            return .json(#"{"count":50,"results":[\#(items)],"count":20}"#)
        }
        var offset = PaginationScheme.Offset(limit: 10)
        offset.totalItemsPath = Self.path("count")
        let pages = try await PageWalker.make(.offset(offset), transport: transport, base: "http://h/a") { $0.itemsPath = Self.path("results") }
            .pages()
        #expect(pages.flatMap(\.itemBytes).count == 20)
        // Two pages, and the one past the full second, found empty (a total may be lower than the truth: review17 B10).
        #expect(transport.requestedURLs.count == 3)
    }

    @Test("the items path: of two item arrays (or an array then null) the last is walked")
    func itemsTakeTheLast() async throws {
        let arrays = FakeTransport { _ in .json(#"{"results":[{"id":0}],"next":null,"results":[{"id":1},{"id":2}]}"#) }
        let items = try await PageWalker.make(.nextURLInBody(.init()), transport: arrays, base: "http://h/a") { $0.itemsPath = Self.path("results") }
            .pages().flatMap(\.itemBytes)
        #expect(items == [Array(#"{"id":1}"#.utf8), Array(#"{"id":2}"#.utf8)])
        let nested = FakeTransport { _ in .json(#"{"data":{"items":[{"id":0}]},"data":{"items":null}}"#) }
        let none = try await PageWalker.make(.nextURLInBody(.init()), transport: nested, base: "http://h/a") { $0.itemsPath = Self.path("data.items") }
            .pages().flatMap(\.itemBytes)
        #expect(none.isEmpty)
    }
}
