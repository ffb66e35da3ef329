import Testing

@testable import PageProxyCore

/// How real upstreams end, link and count their pages (issue 12), against an in-memory upstream.
@Suite struct RealUpstreamWalkTests {
    /// DRF's PageNumberPagination: `?page=N`, 404 `{"detail":"Invalid page."}` past the last page.
    private func drfPages(total: Int, pageSize: Int = 10, withTotal: Bool = false) -> FakeTransport {
        FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            let pages = max(1, (total + pageSize - 1) / pageSize)
            guard page <= pages else {
                return UpstreamResponse(status: .notFound, headers: [:], body: Array(#"{"detail":"Invalid page."}"#.utf8))
            }
            let items = FakePages.body(page: page, pageSize: pageSize, total: total)
            let next = page < pages ? "\"http://api.test/items?page=\(page + 1)\"" : "null"
            return .json(withTotal ? #"{"count":\#(total),"next":\#(next),"results":\#(items)}"# : items)
        }
    }

    private static var pageNumber: PaginationScheme.PageNumber {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        return scheme
    }

    // MARK: End of pages by status

    @Test("with no total, a 404 past the last page ends the walk when the count is a multiple of the page size",
          arguments: [0, 10, 20, 25])
    func notFoundPastTheEndEndsTheWalk(total: Int) async throws {
        let transport = drfPages(total: total)
        let items = try await PageWalker.items(.pageNumber(Self.pageNumber), transport: transport)
        #expect(items == FakePages.expected(total: total))
    }

    @Test("lookahead guesses past the end meet 404s and are dropped without error", arguments: [10, 20, 35])
    func lookaheadGuessesPastTheEndAreDropped(total: Int) async throws {
        var scheme = Self.pageNumber
        scheme.lookahead = 3
        let transport = drfPages(total: total)
        let items = try await PageWalker.items(.pageNumber(scheme), transport: transport) { $0.concurrency = 4 }
        #expect(items == FakePages.expected(total: total))
    }

    @Test("the statuses are the route's: without 404 among them, the page past the end is an error")
    func endStatusesAreConfigurable() async throws {
        var scheme = Self.pageNumber
        scheme.endStatuses = []
        await #expect(throws: PaginationError.self) {
            _ = try await PageWalker.items(.pageNumber(scheme), transport: drfPages(total: 20))
        }
        var offset = PaginationScheme.Offset()
        offset.limit = 10
        offset.endStatuses = [410]
        let gone = FakeTransport { url in
            let start = Int(url.queryValue("offset") ?? "0") ?? 0
            guard start < 20 else { return UpstreamResponse(status: HTTPStatus(code: 410), headers: [:], body: []) }
            return .json(FakePages.body(page: start / 10 + 1, pageSize: 10, total: 20))
        }
        #expect(try await PageWalker.items(.offset(offset), transport: gone) == FakePages.expected(total: 20))
    }

    @Test("a 404 on a page that a total promised is an error, and so is a 404 on the first page")
    func notFoundWithinAKnownTotalIsAnError() async throws {
        var scheme = Self.pageNumber
        scheme.totalPagesHeader = "X-Total-Pages"
        let transport = FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            if page == 3 { return UpstreamResponse(status: .notFound, headers: [:], body: []) }
            return .json(FakePages.body(page: page, pageSize: 10, total: 50), headers: [("X-Total-Pages", "5")])
        }
        do {
            _ = try await PageWalker.items(.pageNumber(scheme), transport: transport)
            Issue.record("expected an error")
        } catch {
            guard case .upstreamStatus(3, _, 404, _) = error else { Issue.record("got \(error)"); return }
        }
        let missing = FakeTransport { _ in UpstreamResponse(status: .notFound, headers: [:], body: []) }
        await #expect(throws: PaginationError.self) { _ = try await PageWalker.items(.pageNumber(Self.pageNumber), transport: missing) }
    }

    // MARK: next-url with a total

    @Test("a next URL with a total fans out along the link's numbering, up to the concurrency", arguments: [1, 4])
    func nextURLWithATotalFansOut(concurrency: Int) async throws {
        var scheme = PaginationScheme.NextURLInBody()
        scheme.totalItemsPath = JSONPath("count")
        scheme.nextPath = JSONPath("next")!
        let transport = drfPages(total: 95, withTotal: true)
        let items = try await PageWalker.items(.nextURLInBody(scheme), transport: transport) {
            $0.itemsPath = JSONPath("results")!
            $0.concurrency = concurrency
        }
        #expect(items == FakePages.expected(total: 95))
        #expect(transport.requestedURLs.count == 10)
        #expect(transport.peakInFlight <= concurrency)
        if concurrency > 1 { #expect(transport.peakInFlight > 1) }
    }

    @Test("offsets in the next link are continued by the page size")
    func nextURLWithOffsetsFansOut() async throws {
        let transport = FakeTransport { url in
            let offset = Int(url.queryValue("offset") ?? "0") ?? 0
            let next = offset + 10 < 45 ? "\"/items?limit=10&offset=\(offset + 10)\"" : "null"
            return .json(#"{"count":45,"next":\#(next),"results":\#(FakePages.body(page: offset / 10 + 1, pageSize: 10, total: 45))}"#)
        }
        var scheme = PaginationScheme.NextURLInBody()
        scheme.totalItemsPath = JSONPath("count")
        let items = try await PageWalker.items(.nextURLInBody(scheme), transport: transport) {
            $0.itemsPath = JSONPath("results")!
            $0.concurrency = 4
        }
        #expect(items == FakePages.expected(total: 45))
        #expect(Set(transport.requestedURLs) == Set(["http://api.test/items"] + [10, 20, 30, 40].map { "http://api.test/items?limit=10&offset=\($0)" }))
    }

    @Test("with a total over maxPages the walk fails at the first page, even when the link is a cursor")
    func totalOverMaxPagesFailsAtOnce() async throws {
        let transport = FakeTransport { _ in .json(#"{"count":1000,"next":"http://api.test/items?cursor=abc","results":[{"id":1}]}"#) }
        var scheme = PaginationScheme.NextURLInBody()
        scheme.totalItemsPath = JSONPath("count")
        do {
            _ = try await PageWalker.items(.nextURLInBody(scheme), transport: transport) {
                $0.itemsPath = JSONPath("results")!
                $0.maxPages = 50
            }
            Issue.record("expected tooManyPages")
        } catch {
            guard case .tooManyPages(50) = error else { Issue.record("got \(error)"); return }
        }
        #expect(transport.requestedURLs.count == 1)
    }

    @Test func numberingIsFoundOnlyWhenOneParameterGrows() {
        let first = PageURL(string: "http://api.test/items?page_size=2")!
        let numbering = PageNumbering(from: first, to: PageURL(string: "http://api.test/items?page=2&page_size=2")!, itemCount: 2)
        #expect(numbering?.parameter == "page" && numbering?.first == 2 && numbering?.step == 1)
        let offset = PageNumbering(from: first, to: PageURL(string: "http://api.test/items?limit=2&offset=2")!, itemCount: 2)
        #expect(offset?.parameter == "offset" && offset?.step == 2)
        #expect(PageNumbering(from: first, to: PageURL(string: "http://api.test/items?cursor=cD0y")!, itemCount: 2) == nil)
        #expect(PageNumbering(from: first, to: PageURL(string: "http://api.test/items?page=2&from=2")!, itemCount: 2) == nil)
    }

    // MARK: Lookahead that learns

    /// GitHub: the first URL is `/repos/o/r/issues`, the links point to `/repositories/1/issues`; no `last` link, so
    /// guesses go on after the first page.
    private func githubLike(pages: Int) -> FakeTransport {
        FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            let link = page < pages ? [("Link", "<http://api.test/repositories/1/items?page=\(page + 1)>; rel=\"next\"")] : []
            return .json(FakePages.body(page: page, pageSize: 10, total: pages * 10), headers: link)
        }
    }

    @Test("guesses are re-based on the upstream's next link: every later guess hits, and the next walk's guesses too")
    func guessesFollowTheLinksPath() async throws {
        var scheme = PaginationScheme.LinkHeader()
        scheme.lookahead = 2
        let memory = LookaheadMemory()
        let first = githubLike(pages: 8)
        let items = try await PageWalker.items(.linkHeader(scheme), transport: first) {
            $0.concurrency = 3
            $0.lookaheadMemory = memory
        }
        #expect(items == FakePages.expected(total: 80))
        // The two guesses sent with the first page, on its own path, missed; every later one was numbered on the
        // links' path and hit (at most `lookahead` guesses past the last page, which has no next link, are wasted).
        let onFirstPath = { (urls: [String]) in urls.filter { $0.contains("api.test/items?page=") }.count }
        #expect(onFirstPath(first.requestedURLs) == 2)
        #expect(Set(first.requestedURLs).count == first.requestedURLs.count)
        #expect(first.requestedURLs.count <= 8 + 2 + 2)
        let second = githubLike(pages: 8)
        _ = try await PageWalker.items(.linkHeader(scheme), transport: second) {
            $0.concurrency = 3
            $0.lookaheadMemory = memory
        }
        #expect(onFirstPath(second.requestedURLs) == 0)
        #expect(second.requestedURLs.count <= 8 + 2)
    }

    @Test("a guess that cannot be confirmed is never sent twice")
    func unconfirmableGuessesStop() async throws {
        let cursors = FakeTransport { url in
            let page = Int(url.queryValue("after").map { String($0.dropFirst()) } ?? "1") ?? 1
            let link = page < 6 ? [("Link", "<http://api.test/items?after=c\(page + 1)>; rel=\"next\"")] : []
            return .json(FakePages.body(page: page, pageSize: 10, total: 60), headers: link)
        }
        var scheme = PaginationScheme.LinkHeader()
        scheme.lookahead = 2
        let memory = LookaheadMemory()
        let items = try await PageWalker.items(.linkHeader(scheme), transport: cursors) {
            $0.concurrency = 3
            $0.lookaheadMemory = memory
        }
        #expect(items == FakePages.expected(total: 60))
        #expect(cursors.requestedURLs.filter { $0.contains("page=") }.count == 2)
        let before = cursors.requestedURLs.count
        _ = try await PageWalker.items(.linkHeader(scheme), transport: cursors) { $0.lookaheadMemory = memory }
        #expect(cursors.requestedURLs.count - before == 6, "\(cursors.requestedURLs)")
    }
}
