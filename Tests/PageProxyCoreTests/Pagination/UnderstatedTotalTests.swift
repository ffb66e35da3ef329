import Testing

@testable import PageProxyCore

/// A total or a `last` link that says less than the upstream has (a list that grew during the walk: DRF and Tastypie
/// count per request): the last page it numbers ahead still links on, and the walk follows, as a walk with no total
/// would (attack7 F2: a 200 with the first pages only, and no word of it).
@Suite struct UnderstatedTotalTests {
    /// Five pages of five items, `?page=N`, linked one to the next; each page states `count` items in all.
    private static func drf(count: Int) -> FakeTransport {
        FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            let items = (1...5).map { "{\"id\":\((page - 1) * 5 + $0)}" }.joined(separator: ",")
            let next = page < 5 ? "\"http://api.test/items?page=\(page + 1)\"" : "null"
            return .json("{\"count\":\(count),\"next\":\(next),\"results\":[\(items)]}")
        }
    }

    private static let nextURL = PaginationScheme.nextURLInBody(.init(totalItemsPath: JSONPath(components: [.key("count")])))

    @Test("a body total under the upstream's: the last page it promised links on, and the walk follows to the end")
    func aShortBodyTotalIsFollowedPast() async throws {
        let transport = Self.drf(count: 12)
        let items = try await PageWalker.items(Self.nextURL, transport: transport) { $0.itemsPath = JSONPath(components: [.key("results")]) }
        #expect(items.count == 25)
        #expect(transport.requestedURLs.count == 5)
    }

    @Test("a true total: no page past it is asked for")
    func aTrueTotalEndsTheWalk() async throws {
        let transport = Self.drf(count: 25)
        let items = try await PageWalker.items(Self.nextURL, transport: transport) { $0.itemsPath = JSONPath(components: [.key("results")]) }
        #expect(items.count == 25 && transport.requestedURLs.count == 5)
    }

    @Test("a client's page cap still ends the walk where it said (the answer says it is cut)")
    func aPageCapIsNotFollowedPast() async throws {
        let transport = Self.drf(count: 12)
        let walker = PageWalker.make(Self.nextURL, transport: transport) {
            $0.itemsPath = JSONPath(components: [.key("results")])
            $0.pageLimit = 2
        }
        let pages = try await walker.pages()
        #expect(pages.count == 2 && walker.wasTruncated)
    }

    @Test("a `last` link short of the pages: the last one it named links on with rel=next, and the walk follows")
    func aShortLastLinkIsFollowedPast() async throws {
        let transport = FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            var links = ["<http://api.test/items?page=2>; rel=\"last\""]
            if page < 3 { links.append("<http://api.test/items?page=\(page + 1)>; rel=\"next\"") }
            return .json("[{\"p\":\(page)}]", headers: [("Link", links.joined(separator: ", "))])
        }
        let items = try await PageWalker.items(.linkHeader(.init()), transport: transport)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == [#"{"p":1}"#, #"{"p":2}"#, #"{"p":3}"#])
    }

    @Test("a total too high and an upstream that answers past its end with its last page: the page saying none follows ends the walk, nothing repeated")
    func aPageSayingItIsTheLastEndsANumberedWalk() async throws {
        // Five pages of five; any page past the fifth is the fifth again (an upstream that clamps), next null there.
        let transport = FakeTransport { url in
            let page = min(url.queryValue("page").flatMap { Int($0) } ?? 1, 5)
            let items = (1...5).map { "{\"id\":\((page - 1) * 5 + $0)}" }.joined(separator: ",")
            let next = page < 5 ? "\"http://api.test/items?page=\(page + 1)\"" : "null"
            return .json("{\"count\":95,\"next\":\(next),\"results\":[\(items)]}")
        }
        let walker = PageWalker.make(Self.nextURL, transport: transport) { $0.itemsPath = JSONPath(components: [.key("results")]) }
        let ids = try await walker.pages().flatMap(\.itemBytes).map { String(decoding: $0, as: UTF8.self) }
        #expect(ids.count == 25 && Set(ids).count == 25)
        #expect(walker.endedShortOfTotal)
    }

    @Test("a `last` link past the list's end: the page with no rel=next ends the walk")
    func aPageWithNoNextLinkEndsALinkHeaderWalk() async throws {
        let transport = FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            var links = ["<http://api.test/items?page=6>; rel=\"last\""]
            if page < 3 { links.append("<http://api.test/items?page=\(page + 1)>; rel=\"next\"") }
            return .json("[{\"p\":\(min(page, 3))}]", headers: [("Link", links.joined(separator: ", "))])
        }
        let items = try await PageWalker.items(.linkHeader(.init()), transport: transport)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == [#"{"p":1}"#, #"{"p":2}"#, #"{"p":3}"#])
    }

    /// 25 items, the upstream's default of 10 a page, `count` in the body and no page size in the route; past page 3
    /// the upstream answers `pastTheEnd`.
    private static func numbered(pastTheEnd: @escaping @Sendable (Int) -> UpstreamResponse) -> FakeTransport {
        FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            if page > 3 { return pastTheEnd(page) }
            return .json("{\"count\":25,\"items\":\(FakePages.body(page: page, pageSize: 10, total: 25))}")
        }
    }

    private static let pageNumberWithCount = PaginationScheme.pageNumber(.init(totalItemsPath: JSONPath(components: [.key("count")])))

    @Test(
        "a total of items and no page size: the short last page is not numbered on by its own size, whatever the upstream answers past it",
        arguments: ["404", "its last page again", "an empty page"])
    func aShortLastPageEndsAPageNumberWalk(pastTheEnd: String) async throws {
        let transport = Self.numbered { _ in
            switch pastTheEnd {
            case "404": UpstreamResponse(status: HTTPStatus(code: 404), headers: HTTPHeaders(), body: Array(#"{"detail":"Invalid page."}"#.utf8))
            case "its last page again": .json("{\"count\":25,\"items\":\(FakePages.body(page: 3, pageSize: 10, total: 25))}")
            default: .json(#"{"count":25,"items":[]}"#)
            }
        }
        let walker = PageWalker.make(Self.pageNumberWithCount, transport: transport) { $0.itemsPath = JSONPath(components: [.key("items")]) }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: 25))
        #expect(transport.requestedURLs.count == 3)
        #expect(!walker.endedShortOfTotal)
    }

    @Test("a last page that links past its stated total onto a 404 (a cached page from when the list was longer): the walk ends there, whole")
    func aLinkPastTheTotalOntoA404EndsTheWalk() async throws {
        let transport = FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            if page > 3 {
                return UpstreamResponse(status: HTTPStatus(code: 404), headers: HTTPHeaders(), body: Array(#"{"detail":"Invalid page."}"#.utf8))
            }
            let items = (1...5).map { "{\"id\":\((page - 1) * 5 + $0)}" }.joined(separator: ",")
            return .json("{\"count\":15,\"next\":\"http://api.test/items?page=\(page + 1)\",\"results\":[\(items)]}")
        }
        let items = try await PageWalker.items(Self.nextURL, transport: transport) { $0.itemsPath = JSONPath(components: [.key("results")]) }
        #expect(items.count == 15)
        #expect(transport.requestedURLs.count == 4)
    }
}
