import Testing

@testable import PageProxyCore

/// review26 H2: an offset walk whose first page is short of its limit under a total steps by what it served when that
/// is at least half the limit (every later page asks that many), else by the limit. The page count the first page
/// predicts (`expectedPageCount`, which refuses a walk past `maxPages` before its second page) is by the limit, the
/// fewest `maxPages` counts (fix22b, review21 M3: a filter's pages of fewer positions count by them,
/// `SmallPageCharge`): a cap past `maxPages` is refused at the second page, which shows it.
@Suite struct ShortFirstPageStepTests {
    /// `total` items `{"id":N}` behind `X-Total-Count`, at most `cap` a page whatever `limit` asks.
    private static func capped(total: Int, cap: Int) -> FakeTransport {
        FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            let count = max(0, min(url.integerQueryValue("limit") ?? 10, cap, total - offset))
            let items = (offset..<offset + count).map { "{\"id\":\($0)}" }.joined(separator: ",")
            return .json("[\(items)]", headers: [("X-Total-Count", String(total))])
        }
    }

    private static var offset: PaginationScheme {
        var options = PaginationScheme.Offset()
        options.limit = 10
        options.totalItemsHeader = "X-Total-Count"
        return .offset(options)
    }

    @Test("a cap of 6 under a limit of 10, 100 items: 17 pages, refused at the second under maxPages 12, which shows the cap")
    func aCapAtLeastHalfTheLimitCountsByTheCap() async {
        let transport = Self.capped(total: 100, cap: 6)
        let walker = PageWalker.make(Self.offset, transport: transport) { $0.maxPages = 12 }
        await #expect {
            _ = try await walker.pages()
        } throws: { error in
            guard case .tooManyPages(12)? = error as? PaginationError else { return false }
            return true
        }
        #expect(transport.requestedURLs.count == 2, "\(transport.requestedURLs)")
    }

    @Test("a cap of 6 under a limit of 10, 100 items, maxPages 17: every item, by the cap")
    func aCapFitsUnderMaxPages() async throws {
        let transport = Self.capped(total: 100, cap: 6)
        let walker = PageWalker.make(Self.offset, transport: transport) { $0.maxPages = 17 }
        #expect(try await walker.pages().reduce(0) { $0 + $1.itemCount } == 100)
        #expect(transport.requestedURLs.count == 17)
    }
}
