import Testing

@testable import PageProxyCore

/// attack14 M9 / review17 L4: pages are numbered ahead only when the next link is the page's URL renumbered. A link
/// that also carries a cursor (`?page=2&cursor=c1`) is followed: built pages would all carry page 2's cursor, and an
/// upstream that reads only the cursor answers page 2 again.
@Suite struct NumberedFanOutGuardTests {
    /// 9 items, 3 a page; the upstream reads only `cursor` (`cN` = page N + 1), the page number is cosmetic.
    private static func page(of url: PageURL) -> Int {
        guard let cursor = url.queryValue("cursor"), let number = Int(cursor.dropFirst()) else { return 1 }
        return number + 1
    }

    @Test("a next-url walk with a total follows a next link that carries a cursor beside the page number")
    func nextURLWithACursorBesideThePageIsFollowed() async throws {
        let transport = FakeTransport { url in
            let page = Self.page(of: url)
            let items = FakePages.items(page: page, pageSize: 3, total: 9).map { "{\"id\":\($0)}" }.joined(separator: ",")
            let next = page < 3 ? "\"http://api.test/items?page=\(page + 1)&cursor=c\(page)\"" : "null"
            return .json("{\"count\":9,\"next\":\(next),\"results\":[\(items)]}")
        }
        let scheme = PaginationScheme.nextURLInBody(.init(totalItemsPath: JSONPath("count")))
        let items = try await PageWalker.items(scheme, transport: transport) { $0.itemsPath = JSONPath("results")! }
        #expect(items == FakePages.expected(total: 9))
        // Pages 2 and 3 are asked side by side (the total numbers them): page 1 first, then both in either order.
        #expect(transport.requestedURLs.first == "http://api.test/items")
        #expect(transport.requestedURLs.sorted() == [
            "http://api.test/items", "http://api.test/items?page=2&cursor=c1", "http://api.test/items?page=3&cursor=c2",
        ])
    }

    @Test("a next-url link that only renumbers the page (and sets a size) is still numbered ahead")
    func plainNumberingStillFansOut() throws {
        let body = #"{"count":9,"next":"http://api.test/items?q=x&page=2&page_size=3","results":[{"id":0},{"id":1},{"id":2}]}"#
        let scanned = try JSONScanner().scan(Array(body.utf8), itemsAt: JSONPath("results")!, values: [JSONPath("count")!, JSONPath("next")!])
        let page = Page(
            number: 1, url: try #require(PageURL(string: "http://api.test/items?q=x")), status: .ok, headers: HTTPHeaders(),
            body: Array(body.utf8), items: scanned.items, values: scanned.values)
        let strategy = NextURLInBodyStrategy(options: .init(totalItemsPath: JSONPath("count")))
        guard case .all(let pages) = try strategy.next(after: page) else {
            Issue.record("expected the pages numbered ahead")
            return
        }
        #expect(pages.urls(prefix: 5).map(\.description) == [
            "http://api.test/items?q=x&page=2&page_size=3", "http://api.test/items?q=x&page=3&page_size=3",
        ])
    }

    @Test("a link-header walk follows `next` when `last` carries another token beside the page number")
    func linkHeaderWithATokenBesideThePageIsFollowed() async throws {
        let transport = FakeTransport { url in
            let page = Self.page(of: url)
            var link = "<http://api.test/items?page=3&cursor=c9>; rel=\"last\""
            if page < 3 { link = "<http://api.test/items?page=\(page + 1)&cursor=c\(page)>; rel=\"next\", " + link }
            return .json(FakePages.body(page: page, pageSize: 3, total: 9), headers: [("Link", link)])
        }
        let items = try await PageWalker.items(.linkHeader(.init()), transport: transport)
        #expect(items == FakePages.expected(total: 9))
        // Pages 2 and 3 are asked side by side (the total numbers them): page 1 first, then both in either order.
        #expect(transport.requestedURLs.first == "http://api.test/items")
        #expect(transport.requestedURLs.sorted() == [
            "http://api.test/items", "http://api.test/items?page=2&cursor=c1", "http://api.test/items?page=3&cursor=c2",
        ])
    }
}

/// review22 L2: a page numbered ahead (fetched beside others) that holds more items than its limit asked for fails the
/// walk, as the first page and pages asked one after another do (review17 B6); its `next` was read with `try?`, which
/// dropped the check.
@Suite struct NumberedPageLengthTests {
    @Test("an offset page numbered ahead longer than its limit: cannotContinue, not its items answered")
    func aLongNumberedPageFailsTheWalk() async throws {
        // 20 items, limit 5, `count` 20; the page at offset 10 serves 8 items (an upstream reading another limit there).
        let transport = FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            let ids = Array(offset..<min(20, offset + (offset == 10 ? 8 : 5)))
            return .json("{\"count\":20,\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
        let scheme = PaginationScheme.offset(.init(limit: 5, totalItemsPath: JSONPath(components: [.key("count")])))
        do {
            let items = try await PageWalker.items(scheme, transport: transport) { $0.itemsPath = JSONPath(components: [.key("results")]) }
            Issue.record("the walk answered \(items.count) items")
        } catch {
            // The page's own limit is checked before pages of two sizes (attack16 M3's pageSizeChanged, which would
            // walk again revalidating for nothing; review23 F4).
            guard case .cannotContinue(let page, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(page == 3)
        }
    }
}
