import Testing

@testable import PageProxyCore

/// fold23b's LOW: an offset walk with no total over an upstream that answers any offset past its list's end with its
/// last page (Django's `get_page()` behind an offset; mock `mock_past_end=last`). A list whose last page is full (20
/// items at a limit of 10, or under a cap of 4) sends no short or empty page to end the walk: the page past the end held
/// the page before's items again, and the walk failed there (`SteppedPageOverlap`, a `502`). `OffsetStrategy` now names
/// such pages (`mayRepeatPastEnd`) and the page far past (`pageFarPast`), as the page-number strategy does: the repeat
/// ends the walk, and the page far past tells the habit. An upstream that ignores the offset still fails.
@Suite struct OffsetPastEndRepeatTests {
    /// `total` items `{"id":N}` (no total stated), at most `cap` a page whatever `limit` asks; an offset past the end is
    /// answered with the last page as the size asked cuts it (`clamps`), or the offset is ignored (`ignoresOffset`).
    /// With `period`, items with no id whose one value cycles every `period` items (`{"day":N % period}`).
    private static func upstream(
        total: Int, cap: Int = 100, clamps: Bool = true, ignoresOffset: Bool = false, period: Int? = nil
    ) -> FakeTransport {
        FakeTransport { url in
            let size = min(url.integerQueryValue("limit") ?? 10, cap)
            var offset = ignoresOffset ? 0 : url.integerQueryValue("offset") ?? 0
            if clamps, offset >= total, total > 0 { offset = (total - 1) / size * size }
            let items = (offset..<max(offset, min(total, offset + size))).map { position in
                period.map { "{\"day\":\(position % $0)}" } ?? "{\"id\":\(position)}"
            }.joined(separator: ",")
            return .json("[\(items)]")
        }
    }

    private static var offset: PaginationScheme {
        var options = PaginationScheme.Offset()
        options.limit = 10
        return .offset(options)
    }

    private static func strategy(total: String? = nil) -> OffsetStrategy {
        var options = PaginationScheme.Offset()
        options.limit = 10
        options.totalItemsPath = total.flatMap { JSONPath($0) }
        return OffsetStrategy(options: options)
    }

    /// The walk's `number`th page at `?offset=offset&limit=10`, holding `items` items, and a total when `total` is given.
    private static func page(offset: Int, items: Int, number: Int, total: Int? = nil) throws -> Page {
        let url = try #require(PageURL(string: "http://api.test/items?offset=\(offset)&limit=10"))
        let list = (0..<items).map { "{\"id\":\(offset + $0)}" }.joined(separator: ",")
        let body = Array((total.map { "{\"total\":\($0),\"items\":[\(list)]}" } ?? "{\"items\":[\(list)]}").utf8)
        let scanned = try JSONScanner().scan(body, itemsAt: #require(JSONPath("items")), values: [#require(JSONPath("total"))])
        return Page(number: number, url: url, status: .ok, headers: HTTPHeaders(), body: body, items: scanned.items, values: scanned.values)
    }

    @Test("the pages a repeat past the end may follow: every later page and a first page past offset 0, with no total")
    func thePagesARepeatMayFollow() throws {
        let strategy = Self.strategy(total: "total")
        #expect(strategy.mayRepeatPastEnd(after: try Self.page(offset: 10, items: 10, number: 2)))
        #expect(strategy.mayRepeatPastEnd(after: try Self.page(offset: 30, items: 10, number: 1)), "a client's offset, a window's jump")
        #expect(!strategy.mayRepeatPastEnd(after: try Self.page(offset: 0, items: 10, number: 1)), "the list's first page: IgnoredPageNumber")
        #expect(!strategy.mayRepeatPastEnd(after: try Self.page(offset: 10, items: 10, number: 2, total: 40)), "a total numbers the end")
        #expect(!strategy.mayRepeatPastEnd(after: try Self.page(offset: 10, items: 0, number: 2)), "an empty page ends the list")
    }

    @Test("the page far past is maxPages limits on, nil past Int.max")
    func thePageFarPast() throws {
        let strategy = Self.strategy()
        let far = strategy.pageFarPast(try Self.page(offset: 20, items: 10, number: 3), by: 50)
        #expect(far?.description == "http://api.test/items?offset=520&limit=10")
        let url = try #require(PageURL(string: "http://api.test/items?offset=\(Int.max - 5)&limit=10"))
        let last = Page(number: 2, url: url, status: .ok, headers: HTTPHeaders(), body: [], items: [], values: [:])
        #expect(strategy.pageFarPast(last, by: 50) == nil)
    }

    @Test(
        "a full last page repeated past the end ends an offset walk with no total: every item once, not a 502",
        // (total, cap, requests): the pages, the repeat, and the page far past it (which repeats the last page too).
        arguments: [(20, 100, 4), (30, 100, 5), (20, 4, 7), (24, 4, 8)] as [(Int, Int, Int)])
    func aFullLastPageRepeatedPastTheEnd(total: Int, cap: Int, requests: Int) async throws {
        let transport = Self.upstream(total: total, cap: cap)
        let walker = PageWalker.make(Self.offset, transport: transport) { $0.maxPages = 50 }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: total))
        #expect(transport.requestedURLs.count == requests, "\(transport.requestedURLs)")
        // The page far past held the last page again: the upstream's habit, and the list is whole.
        #expect(!walker.wasTruncated && !walker.endedOnRepeat)
    }

    @Test("a list of one full page repeated at the next offset: the first page one position on shows the offset read")
    func aSingleFullPageRepeated() async throws {
        let transport = Self.upstream(total: 10)
        let walker = PageWalker.make(Self.offset, transport: transport) { $0.maxPages = 50 }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: 10))
        #expect(transport.requestedURLs.map { PageURL(string: $0)?.queryValue("offset") } == ["0", "10", "1"])
    }

    @Test(
        "data that repeats with the page size is not a one-page list: the first page one position on holds a full page, a 502",
        // (limit, cap, period): a full first page again (review25 HIGH), and a first page short under a cap.
        arguments: [(10, 100, 10), (5, 100, 5), (10, 100, 5), (10, 4, 4), (10, 4, 2)] as [(Int, Int, Int)])
    func periodicDataIsNotOnePage(limit: Int, cap: Int, period: Int) async {
        let transport = Self.upstream(total: 40, cap: cap, period: period)
        var options = PaginationScheme.Offset()
        options.limit = limit
        let walker = PageWalker.make(.offset(options), transport: transport) { $0.maxPages = 50 }
        await #expect {
            _ = try await walker.pages()
        } throws: { error in
            guard case .cannotContinue? = error as? PaginationError else { return false }
            return true
        }
        // The check page was asked: the first page one position on.
        #expect(transport.requestedURLs.last.flatMap { PageURL(string: $0)?.queryValue("offset") } == "1", "\(transport.requestedURLs)")
    }

    @Test("a client's offset over such an upstream: the repeat ends the walk, the list's first page showing other items")
    func aClientsOffsetEndsAtTheRepeat() async throws {
        let transport = Self.upstream(total: 20)
        let walker = PageWalker.make(Self.offset, transport: transport, base: "http://api.test/items?offset=10") { $0.maxPages = 50 }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == Array(FakePages.expected(total: 20)[10...]))
        #expect(transport.requestedURLs.map { PageURL(string: $0)?.queryValue("offset") } == ["10", "20", "0"])
        #expect(!walker.wasTruncated && !walker.endedOnRepeat)
    }

    @Test("an upstream that ignores the offset still fails: from the list's first page, and from a client's offset", arguments: [0, 10, 4])
    func anIgnoredOffsetStillFails(start: Int) async {
        // A cap of 4 for `start` 4: a short first page again (`ShortFirstPageRepeat`).
        let transport = Self.upstream(total: 20, cap: start == 4 ? 4 : 100, clamps: false, ignoresOffset: true)
        let walker = PageWalker.make(Self.offset, transport: transport, base: "http://api.test/items?offset=\(start == 4 ? 0 : start)") {
            $0.maxPages = 50
        }
        await #expect {
            _ = try await walker.pages()
        } throws: { error in
            guard case .cannotContinue? = error as? PaginationError else { return false }
            return true
        }
    }
}
