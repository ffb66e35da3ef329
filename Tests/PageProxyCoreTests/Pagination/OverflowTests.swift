import Foundation
import Testing

@testable import PageProxyCore

/// Hostile numbers from the client's query or the upstream's pages: each of these trapped (integer overflow,
/// division by zero) or allocated without bound before the arithmetic was made overflow-safe and page counts were
/// checked against maxPages before any URL was built.
@Suite struct OverflowTests {
    private static let big = Int.max
    private static let base = PageURL(string: "http://api.test/items")!  // a literal, never input

    private func page(_ url: String, body: String = "[{\"id\":1}]", items: JSONPath = .root, values: [JSONPath], headers: [(String, String)] = []) throws -> Page {
        let url = try #require(PageURL(string: url))
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        let scanned = try JSONScanner().scan(Array(body.utf8), itemsAt: items, values: values)
        return Page(number: 1, url: url, status: .ok, headers: fields, body: Array(body.utf8), items: scanned.items, values: scanned.values)
    }

    private func walk(
        _ scheme: PaginationScheme, options configure: (inout PageWalker.Options) -> Void = { _ in },
        answer: @escaping @Sendable (PageURL) -> UpstreamResponse
    ) async throws(PaginationError) -> (pages: Int, transport: FakeTransport) {
        let transport = FakeTransport { url in answer(url) }
        let walker = PageWalker.make(scheme, transport: transport, configure: configure)
        return (try await walker.pages().count, transport)
    }

    private func expectTooManyPages(
        _ scheme: PaginationScheme, maxPages: Int = 50, items: JSONPath = .root, answer: @escaping @Sendable (PageURL) -> UpstreamResponse
    ) async {
        do {
            let result = try await walk(scheme, options: { $0.maxPages = maxPages; $0.itemsPath = items }, answer: answer)
            Issue.record("expected tooManyPages, walked \(result.pages) pages")
        } catch {
            guard case .tooManyPages(let limit) = error else { Issue.record("got \(error)"); return }
            #expect(limit == maxPages)
        }
    }

    // MARK: offset

    private var drf: PaginationScheme.Offset {
        var options = PaginationScheme.Offset()
        options.limit = 10
        options.totalItemsPath = JSONPath("count")
        return options
    }

    @Test("a huge client limit with a total steps by what the upstream served, without overflow (attack12 L4: it ended after one item of 50)")
    func offset_HugeClientLimitWithATotal_StepsByWhatWasServed() throws {
        let page = try page("http://api.test/items?offset=1&limit=\(Self.big)", body: #"{"count":50,"results":[{"id":1}]}"#,
            items: JSONPath("results")!, values: [JSONPath("count")!])
        guard case .all(let pages) = try OffsetStrategy(options: drf).next(after: page) else {
            Issue.record("the walk did not go on")
            return
        }
        #expect(pages.first == 2)
        #expect(pages.step == 1)
        #expect(pages.count == 48)
        // At the stated end, with nothing served past it, the walk ends.
        let last = try self.page("http://api.test/items?offset=49&limit=\(Self.big)", body: #"{"count":50,"results":[{"id":50}]}"#,
            items: JSONPath("results")!, values: [JSONPath("count")!])
        #expect(try OffsetStrategy(options: drf).next(after: last) == .none)
    }

    @Test func offset_GuessPastIntMax_IsNoGuess() throws {
        let url = try #require(PageURL(string: "http://api.test/items?offset=1&limit=\(Self.big)"))
        #expect(OffsetStrategy(options: .init()).guessNext(after: url) == nil)
    }

    @Test func offset_ZeroOrNegativeClientLimit_CannotContinue() throws {
        for limit in ["0", "-10", "-9223372036854775808"] {
            let page = try page("http://api.test/items?offset=0&limit=\(limit)", values: [])
            #expect(throws: PaginationError.self) { try OffsetStrategy(options: .init()).next(after: page) }
            #expect(OffsetStrategy(options: .init()).guessNext(after: page.url) == nil)
        }
    }

    @Test func offset_HugeUpstreamTotal_IsTooManyPagesWithoutBuildingThem() async {
        await expectTooManyPages(.offset(drf), items: JSONPath("results")!) { _ in .json(#"{"count":9223372036854775807,"results":[{"id":1}]}"#) }
    }

    @Test func offset_NegativeUpstreamTotal_IsAnUnknownTotal() async throws {
        // A short first page asks the second, as with no total at all (real18 F1b); an empty one, asked again with the
        // limit (the first served under half of it: fix21a), ends the walk.
        let result = try await walk(.offset(drf), options: { $0.itemsPath = JSONPath("results")! }) { url in
            url.integerQueryValue("offset") == 0 ? .json(#"{"count":-5,"results":[{"id":1}]}"#) : .json(#"{"count":-5,"results":[]}"#)
        }
        #expect(result.pages == 3)
    }

    // MARK: page number

    @Test func pageNumber_HugeTotalItems_IsTooManyPages() async {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 10
        options.totalItemsPath = JSONPath("total")
        await expectTooManyPages(.pageNumber(options), items: JSONPath("items")!) { _ in .json(#"{"total":9223372036854775807,"items":[{"id":1}]}"#) }
    }

    @Test func pageNumber_ZeroClientPageSizeWithTotalItems_UsesThePageLength() throws {
        var options = PaginationScheme.PageNumber()
        options.totalItemsPath = JSONPath("total")
        let page = try page("http://api.test/items?page=1&per_page=0", body: #"{"total":3,"items":[{"id":1}]}"#,
            items: JSONPath("items")!, values: [JSONPath("total")!])
        guard case .all(let pages) = try PageNumberStrategy(options: options).next(after: page) else {
            Issue.record("expected every page to be known")
            return
        }
        #expect(pages.urls(prefix: 10).map(\.description) == [
            "http://api.test/items?page=2&per_page=0", "http://api.test/items?page=3&per_page=0",
        ])
    }

    @Test func pageNumber_ClientPageIntMax_HasNoNextPage() throws {
        let page = try page("http://api.test/items?page=\(Self.big)", values: [])
        #expect(try PageNumberStrategy(options: .init()).next(after: page) == .none)
        #expect(PageNumberStrategy(options: .init()).guessNext(after: page.url) == nil)
    }

    @Test func pageNumber_HugeTotalPagesWithFirstPageAboveOne_IsTooManyPages() async {
        var options = PaginationScheme.PageNumber()
        options.firstPage = 2
        options.totalPagesHeader = "X-Total-Pages"
        await expectTooManyPages(.pageNumber(options)) { _ in .json("[{\"id\":1}]", headers: [("X-Total-Pages", String(Self.big))]) }
    }

    // MARK: link header

    @Test func linkHeader_LastLinkAtIntMaxAfterIntMin_IsTooManyPages() async {
        await expectTooManyPages(.linkHeader(.init())) { _ in
            .json("[{\"id\":1}]", headers: [("Link",
                "<http://api.test/items?page=-9223372036854775808>; rel=\"next\", <http://api.test/items?page=\(Self.big)>; rel=\"last\"")])
        }
    }

    @Test func linkHeader_HugeLastLink_IsTooManyPages() async {
        await expectTooManyPages(.linkHeader(.init())) { _ in
            .json("[{\"id\":1}]", headers: [("Link",
                "<http://api.test/items?page=2>; rel=\"next\", <http://api.test/items?page=\(Self.big)>; rel=\"last\"")])
        }
    }

    // MARK: next-page header

    @Test func nextPageHeader_TotalPagesOf10To18_IsTooManyPagesWithOneRequest() async throws {
        let transport = FakeTransport { _ in .json("[{\"id\":1}]", headers: [("X-Next-Page", "2"), ("X-Total-Pages", "1000000000000000000")]) }
        let walker = PageWalker.make(.nextPageHeader(.init()), transport: transport) { $0.maxPages = 50 }
        await #expect(throws: PaginationError.self) { _ = try await walker.pages() }
        #expect(transport.requestedURLs.count == 1)
    }

    @Test func nextPageHeader_HugeTotalUnderTheClientsPageCap_IsTruncatedNotAnError() async throws {
        let result = try await walk(.nextPageHeader(.init()), options: { $0.pageLimit = 3 }) { url in
            .json("[{\"id\":\(url.queryValue("page") ?? "1")}]", headers: [("X-Next-Page", "2"), ("X-Total-Pages", String(Self.big))])
        }
        #expect(result.pages == 3)
    }

    // MARK: the walk and the upstream's advice

    @Test func walker_HugeConcurrency_DoesNotOverflowTheWindow() async throws {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 10
        options.totalPagesHeader = "X-Total-Pages"
        let result = try await walk(.pageNumber(options), options: { $0.concurrency = .max }) { url in
            let number = Int(url.queryValue("page") ?? "1") ?? 1
            return .json(FakePages.body(page: number, pageSize: 10, total: 30), headers: [("X-Total-Pages", "3")])
        }
        #expect(result.pages == 3)
    }

    @Test(arguments: ["1e300", "-1e300", "inf", "nan", "1.8e19"])
    func rateLimitReset_OutOfDurationRange_DoesNotTrap(reset: String) {
        let headers = HTTPHeaders([("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", reset)])
        let wait = RateLimitAdvice.wait(in: headers, now: Date(timeIntervalSince1970: 0))
        if let wait { #expect(wait >= .zero) }
        if reset == "1e300" { #expect(wait.map { $0 > .seconds(30) } == true) }
    }

    // MARK: NumberedPages

    @Test func numberedPages_CountsExtremeRangesWithoutOverflow() throws {
        let url = Self.base
        #expect(NumberedPages(template: url, parameter: "p", first: .min, through: .max).count == .max)
        #expect(NumberedPages(template: url, parameter: "p", first: .min, through: .max, step: 2).count == .max)
        #expect(NumberedPages(template: url, parameter: "p", first: .min, through: .max, step: .max).count == 3)
        #expect(NumberedPages(template: url, parameter: "p", first: 10, below: 10, step: 5).count == 0)
        #expect(NumberedPages(template: url, parameter: "p", first: 10, below: 21, step: 5).count == 3)
        #expect(NumberedPages(template: url, parameter: "p", first: .max, below: .min).count == 0)
        let wide = NumberedPages(template: url, parameter: "p", first: .min, through: .max, step: .max)
        #expect((0..<3).map(wide.number(at:)) == [.min, -1, .max - 1])
    }
}
