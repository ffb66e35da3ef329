import Testing

@testable import PageProxyCore

/// A cursor route over a Relay connection (real16): the last page still names its `endCursor`; its sibling
/// `hasNextPage: false` ends the walk there, and nothing else about the cursor changes.
@Suite struct RelayCursorEndTests {
    /// A page of `ids` whose pageInfo says `more` (nil: no `hasNextPage` member) and names the last id as its cursor.
    private static func page(_ ids: [Int], more: Bool?, key: String = "pageInfo") -> String {
        let flag = more.map { #""hasNextPage":\#($0),"# } ?? ""
        let edges = ids.map { #"{"node":{"id":\#($0)}}"# }.joined(separator: ",")
        return #"{"data":{"things":{"edges":[\#(edges)],"\#(key)":{\#(flag)"endCursor":"c\#(ids.last ?? 0)"}}}}"#
    }

    /// The URLs a walk of `cursorPath` over two pages asks for: the second's flag is `more`, and a third page (after
    /// `c4`) holds no edges.
    private func walk(more: Bool?, key: String = "pageInfo") async throws -> [String] {
        let transport = FakeTransport { url throws(UpstreamError) in
            switch url.queryValue("after") {
            case nil: return .json(Self.page([1, 2], more: true, key: key))
            case "c2": return .json(Self.page([3, 4], more: more, key: key))
            default: return .json(#"{"data":{"things":{"edges":[],"\#(key)":{"hasNextPage":false,"endCursor":null}}}}"#)
            }
        }
        let options = PaginationScheme.CursorInBody(
            cursorPath: try #require(JSONPath("data.things.\(key).endCursor")), cursorParameter: "after", sizeParameter: nil)
        var walkOptions = PageWalker.Options()
        walkOptions.itemsPath = try #require(JSONPath("data.things.edges"))
        let walker = PageWalker(base: try #require(PageURL(string: "http://api.test/graphql")), scheme: .cursorInBody(options), options: walkOptions) {
            url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url), timeout: .seconds(5), maxBodyBytes: 1 << 20)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
        #expect(try await walker.pages().flatMap(\.itemBytes).count == 4)
        return transport.requestedURLs
    }

    @Test("An endCursor of \"0\" or 0 beside hasNextPage true is followed, not taken for Twitter's end (attack16 L3)", arguments: [#""0""#, "0"])
    func zeroCursorWithMoreIsFollowed(zero: String) async throws {
        let transport = FakeTransport { url throws(UpstreamError) in
            switch url.queryValue("after") {
            case nil: return .json(#"{"data":{"things":{"edges":[{"node":{"id":0}}],"pageInfo":{"hasNextPage":true,"endCursor":\#(zero)}}}}"#)
            case "0": return .json(#"{"data":{"things":{"edges":[{"node":{"id":1}}],"pageInfo":{"hasNextPage":false,"endCursor":"1"}}}}"#)
            default: return .json(#"{"data":{"things":{"edges":[],"pageInfo":{"hasNextPage":false,"endCursor":null}}}}"#)
            }
        }
        let options = PaginationScheme.CursorInBody(
            cursorPath: try #require(JSONPath("data.things.pageInfo.endCursor")), cursorParameter: "after", sizeParameter: nil)
        let itemsPath = try #require(JSONPath("data.things.edges"))
        let items = try await PageWalker.items(.cursorInBody(options), transport: transport) { $0.itemsPath = itemsPath }
        #expect(items.count == 2)
        #expect(transport.requestedURLs == ["http://api.test/items", "http://api.test/items?after=0"])
    }

    @Test("hasNextPage true beside an endCursor of null: cannotContinue, not the end (retest16 N3: a 200 with page 1 only)")
    func moreWithNoCursorFails() async throws {
        let transport = FakeTransport { _ in
            .json(#"{"data":{"things":{"edges":[{"node":{"id":0}}],"pageInfo":{"hasNextPage":true,"endCursor":null}}}}"#)
        }
        let options = PaginationScheme.CursorInBody(
            cursorPath: try #require(JSONPath("data.things.pageInfo.endCursor")), cursorParameter: "after", sizeParameter: nil)
        let itemsPath = try #require(JSONPath("data.things.edges"))
        do {
            let items = try await PageWalker.items(.cursorInBody(options), transport: transport) { $0.itemsPath = itemsPath }
            Issue.record("answered \(items.count) items")
        } catch {
            guard case .cannotContinue(let page, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(page == 1)
        }
    }

    @Test("hasNextPage false ends the walk at that page (before real16: its endCursor was followed to a page of no edges)")
    func falseEnds() async throws {
        #expect(try await walk(more: false).count == 2)
    }

    @Test("hasNextPage true or absent, or a cursor path that is not Relay's pageInfo, follows the cursor as before")
    func otherwiseFollows() async throws {
        #expect(try await walk(more: true).count == 3)
        #expect(try await walk(more: nil).count == 3)
        #expect(try await walk(more: false, key: "paging").count == 3)
    }
}
