import Testing

@testable import PageProxyCore

/// review17 B5 / B10: the end a numbered walk counted from, compared with every later page's; and totals lower than
/// the items (estimated counts, a `0`), which end nothing.
@Suite struct StatedEndCheckTests {
    /// Offset pages of 5 from 0 to `total`; the page at `offset` states `count(offset)` items in all.
    private static func offsets(total: Int, count: @escaping @Sendable (Int) -> Int) -> FakeTransport {
        FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            let ids = offset < total ? Array(offset..<min(total, offset + 5)) : []
            return .json("{\"count\":\(count(offset)),\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
    }

    private static let offset = PaginationScheme.offset(.init(limit: 5, totalItemsPath: JSONPath(components: [.key("count")])))
    private static func results(_ options: inout PageWalker.Options) { options.itemsPath = JSONPath(components: [.key("results")]) }

    @Test("a page numbered from the first's total that states another fails the walk: listChanged, not items twice or lost")
    func aChangedTotalFailsTheWalk() async throws {
        let transport = Self.offsets(total: 25) { $0 >= 10 ? 28 : 25 }
        let walker = PageWalker.make(Self.offset, transport: transport, configure: Self.results)
        do {
            _ = try await walker.pages()
            Issue.record("the walk answered")
        } catch {
            guard case .listChanged(let page, let stated, let numbered) = error else {
                Issue.record("\(error)")
                return
            }
            #expect((page, stated, numbered) == (3, 28, 25))
            #expect(error.code == "upstream_list_changed")
        }
        #expect(walker.foundListChanged)
    }

    @Test("a `last` link that moves between numbered pages fails a link-header walk")
    func aMovedLastLinkFailsTheWalk() async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            let last = page >= 3 ? 6 : 5
            var links = ["<http://api.test/items?page=\(last)>; rel=\"last\""]
            if page < last { links.append("<http://api.test/items?page=\(page + 1)>; rel=\"next\"") }
            return .json("[{\"p\":\(page)}]", headers: [("Link", links.joined(separator: ", "))])
        }
        await #expect(throws: PaginationError.self) { try await PageWalker.items(.linkHeader(.init()), transport: transport) }
    }

    @Test("an unchanged total: every item once, no page past a short last one")
    func anUnchangedTotalWalksAsBefore() async throws {
        let transport = Self.offsets(total: 23) { _ in 23 }
        let items = try await PageWalker.items(Self.offset, transport: transport, configure: Self.results)
        #expect(items.count == 23)
        #expect(transport.requestedURLs.count == 5)
    }

    @Test("a total lower than the items (an estimate, a 0): the short-page rule ends the walk, every item once", arguments: [0, 3, 16, 20])
    func aTotalBelowTheItemsEndsNothing(count: Int) async throws {
        let transport = Self.offsets(total: 23) { _ in count }
        let items = try await PageWalker.items(Self.offset, transport: transport, configure: Self.results)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<23).map { "{\"id\":\($0)}" })
    }

    @Test("the full last page a total numbered is followed by one more; a 416 there (PostgREST) ends the walk quietly")
    func aFullLastPageIsFollowedOnce() async throws {
        let transport = FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            guard offset < 20 else { return UpstreamResponse(status: HTTPStatus(code: 416), headers: HTTPHeaders(), body: []) }
            let ids = Array(offset..<offset + 5)
            return .json("{\"count\":20,\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
        let items = try await PageWalker.items(Self.offset, transport: transport, configure: Self.results)
        #expect(items.count == 20)
        #expect(transport.requestedURLs.count == 5)
    }

    @Test("page-number: a total of 0 beside items, and one 80 % of the truth, end nothing")
    func aPageNumberTotalBelowTheItemsEndsNothing() async throws {
        for count in [0, 20] {
            let transport = FakeTransport { url in
                let page = url.integerQueryValue("page") ?? 1
                return .json("{\"total\":\(count),\"items\":\(FakePages.body(page: page, pageSize: 5, total: 25))}")
            }
            let scheme = PaginationScheme.pageNumber(.init(pageSize: 5, totalItemsPath: JSONPath(components: [.key("total")])))
            let items = try await PageWalker.items(scheme, transport: transport) { $0.itemsPath = JSONPath(components: [.key("items")]) }
            #expect(items == FakePages.expected(total: 25), "count \(count)")
        }
    }
}
