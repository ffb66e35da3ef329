import Testing

@testable import PageProxyCore

/// attack16 M3: pages of two sizes in one walk numbered from a total (an upstream cap that changed while the cache
/// held pages of the old size, an upstream serving another size on some pages) gave a `200` with items twice and
/// others never.
@Suite struct NumberedPageSizeTests {
    private static let total = JSONPath(components: [.key("total")])
    private static let items = JSONPath(components: [.key("items")])
    private static func items(_ options: inout PageWalker.Options) { options.itemsPath = Self.items }

    /// 12 items; the page at `page` (numbered from 1) is cut by `size(page)` items a page, as an upstream does.
    private static func pages(size: @escaping @Sendable (Int) -> Int) -> FakeTransport {
        FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            let ids = FakePages.items(page: page, pageSize: size(page), total: 12)
            return .json("{\"total\":12,\"items\":[" + ids.map(String.init).joined(separator: ",") + "]}")
        }
    }

    private static let pageNumber = PaginationScheme.pageNumber(.init(sizeParameter: "per_page", pageSize: 3, totalItemsPath: total))

    @Test("page-number: page 1 cut by 3, the pages after it by 2 (a cap lowered between them): pageSizeChanged, not items twice")
    func aLowerSizeAfterTheFirstPageFails() async throws {
        let walker = PageWalker.make(Self.pageNumber, transport: Self.pages { $0 == 1 ? 3 : 2 }, configure: Self.items)
        do {
            let pages = try await walker.pages()
            Issue.record("answered \(pages.flatMap(\.itemBytes).map { String(decoding: $0, as: UTF8.self) })")
        } catch {
            guard case .pageSizeChanged(let page, let held, let numbered) = error else {
                Issue.record("\(error)")
                return
            }
            #expect((page, held, numbered) == (2, 2, 3))
            #expect(error.code == "upstream_list_changed")
        }
        #expect(walker.foundListChanged)
    }

    @Test("page-number: pages of 3 and 2 by turns, and a page longer than the first: the walk fails", arguments: [false, true])
    func unevenPagesFail(longer: Bool) async throws {
        let transport = Self.pages { page in longer ? (page == 3 ? 4 : 3) : (page % 2 == 1 ? 3 : 2) }
        await #expect(throws: PaginationError.self) { try await PageWalker.items(Self.pageNumber, transport: transport, configure: Self.items) }
    }

    @Test("page-number under a total of items too high (40 stated, 25 there; an estimate or not): the short page then empty ones end the walk with every item once (review23 F1: a 502)", arguments: [false, true])
    func anOverstatedTotalEndsShortOfIt(estimate: Bool) async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            let ids = FakePages.items(page: page, pageSize: 10, total: 25)
            return .json("{\"total\":40,\"items\":[" + ids.map(String.init).joined(separator: ",") + "]}")
        }
        var options = PaginationScheme.PageNumber(sizeParameter: "per_page", pageSize: 10, totalItemsPath: Self.total)
        options.totalIsEstimate = estimate
        let items = try await PageWalker.items(.pageNumber(options), transport: transport) { options in
            options.itemsPath = Self.items
            options.concurrency = 4
        }
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<25).map(String.init))
    }

    @Test("page-number: every page of one size, a short last page: every item once")
    func oneSizeWalksAsBefore() async throws {
        let items = try await PageWalker.items(
            .pageNumber(.init(sizeParameter: "per_page", pageSize: 5, totalItemsPath: Self.total)), transport: Self.pages { _ in 5 },
            configure: Self.items)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<12).map(String.init))
    }

    @Test("offset stepping by a cap of 3 (a limit of 4 served as 3): a page of 4 met later fails; one of 2 does too")
    func anOffsetPageOffTheCapFails() async throws {
        for odd in [4, 2] {
            let transport = FakeTransport { url in
                let offset = url.integerQueryValue("offset") ?? 0
                let served = offset == 6 ? odd : 3
                let ids = Array(offset..<min(12, offset + served))
                return .json("{\"total\":12,\"items\":[" + ids.map(String.init).joined(separator: ",") + "]}")
            }
            let scheme = PaginationScheme.offset(.init(limit: 4, totalItemsPath: Self.total))
            await #expect(throws: PaginationError.self) { try await PageWalker.items(scheme, transport: transport, configure: Self.items) }
        }
    }
}
