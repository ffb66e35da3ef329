import PageProxyMock
import Testing

@testable import PageProxyCore

/// The walk: order, concurrency bound, guards and caps, against an in-memory upstream.
@Suite struct PageWalkerTests {

    private func walk(
        _ scheme: PaginationScheme, transport: FakeTransport, configure: (inout PageWalker.Options) -> Void = { _ in }
    ) async throws(PaginationError) -> [[UInt8]] {
        try await PageWalker.items(scheme, transport: transport, configure: configure)
    }

    private func numbered(total: Int, pageSize: Int = 10) -> FakeTransport {
        FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            let pages = (total + pageSize - 1) / pageSize
            return .json(FakePages.body(page: page, pageSize: pageSize, total: total), headers: [("X-Total-Pages", String(pages))])
        }
    }

    @Test(arguments: [0, 3, 10, 40, 1000])
    func pageNumberWalksEveryPageInOrder(total: Int) async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        let transport = numbered(total: total)
        let items = try await walk(.pageNumber(scheme), transport: transport)
        #expect(items == FakePages.expected(total: total))
        // A short or empty page ends the walk: exactly the pages needed, plus one empty page after an exact multiple.
        #expect(transport.requestedURLs.count == total / 10 + 1)
    }

    @Test(arguments: [1, 3, 8])
    func knownTotalFansOutUpToConcurrencyNeverMore(concurrency: Int) async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.totalPagesHeader = "X-Total-Pages"
        // Every page after the first waits at a gate: the walker must have `concurrency` of them in flight at once
        // before any answers (the lower bound), and never more (the upper bound, from the transport's record).
        let gate = Gate()
        let pages = numbered(total: 500)
        let transport = FakeTransport { url throws(UpstreamError) in
            if url.queryValue("page").map({ $0 != "1" }) ?? false { await gate.wait() }
            return try await pages.send(UpstreamRequest(url: url), timeout: .seconds(30), maxBodyBytes: 1 << 20)
        }
        let walking = Task { try await self.walk(.pageNumber(scheme), transport: transport) { $0.concurrency = concurrency } }
        #expect(await yieldUntil { gate.waiting == concurrency })
        // Held at the gate, the walker still asks for no more than its window.
        #expect(gate.waiting == concurrency)
        gate.open()
        let items = try await walking.value
        #expect(items == FakePages.expected(total: 500))
        #expect(transport.requestedURLs.count == 50)
        #expect(transport.peakInFlight == concurrency)
    }

    @Test func foreignNextLinkIsRefusedWithoutARequest() async throws {
        let transport = FakeTransport { url in
            .json("[{\"id\":1}]", headers: [("Link", "<http://evil.test/items?page=2>; rel=\"next\"")])
        }
        await #expect(throws: PaginationError.self) {
            _ = try await walk(.linkHeader(.init()), transport: transport)
        }
        #expect(transport.requestedURLs == ["http://api.test/items"])
    }

    @Test func nextLinkBackToAnEarlierPageIsALoop() async throws {
        let transport = FakeTransport { url in
            let next = url.queryValue("page") == "2" ? "http://api.test/items" : "http://api.test/items?page=2"
            // Each page its own items: the link that leads back is what fails the walk, not a repeated page.
            return .json("[{\"id\":\(url.queryValue("page") ?? "1")}]", headers: [("Link", "<\(next)>; rel=\"next\"")])
        }
        do {
            _ = try await walk(.linkHeader(.init()), transport: transport)
            Issue.record("expected a loop error")
        } catch {
            guard case .loop(let page, _) = error else { Issue.record("got \(error)"); return }
            #expect(page == 3)
        }
        #expect(transport.requestedURLs.count == 2)
    }

    @Test func moreThanMaxPagesIsAnError() async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        let transport = numbered(total: 100)
        do {
            _ = try await walk(.pageNumber(scheme), transport: transport) { $0.maxPages = 3 }
            Issue.record("expected tooManyPages")
        } catch {
            guard case .tooManyPages(3) = error else { Issue.record("got \(error)"); return }
        }
        // The fourth page is asked to tell a list of exactly three pages (contract22 F2); its items fail the walk.
        #expect(transport.requestedURLs.count == 4)
    }

    @Test func itemLimitStopsTheWalkEarly() async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        let transport = numbered(total: 100)
        let items = try await walk(.pageNumber(scheme), transport: transport) { $0.itemLimit = 15 }
        #expect(items == Array(FakePages.expected(total: 15)))
        #expect(transport.requestedURLs.count == 2)
    }

    @Test("a walk that ends tells its read-ahead once, whether it took every page or stopped early; one that told it nothing does not")
    func anEndedWalkTellsItsReadAhead() async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.totalPagesHeader = "X-Total-Pages"
        for (total, itemLimit) in [(1000, 15), (1000, nil), (5, nil)] {
            let (told, ended) = (Locked(0), Locked(0))
            let readAhead = PageReadAhead { urls in
                told.withLock { $0 += 1 }
                _ = urls
            } walkEnded: {
                ended.withLock { $0 += 1 }
            }
            let items = try await walk(.pageNumber(scheme), transport: numbered(total: total)) {
                $0.readAhead = readAhead
                $0.itemLimit = itemLimit
            }
            #expect(items.count == itemLimit ?? total)
            // The walker is gone once `walk` returns: its read-ahead has been told.
            #expect(ended.withLock { $0 } == (told.withLock { $0 } > 0 ? 1 : 0))
            #expect(told.withLock { $0 } > 0 || total == 5, "a walk of 100 pages known ahead asks for some to be read ahead")
        }
    }

    @Test func failedPageEndsTheWalkWithItsError() async throws {
        let transport = FakeTransport { url in
            if url.queryValue("page") == "3" { return UpstreamResponse(status: .internalServerError, headers: [:], body: []) }
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            return .json(FakePages.body(page: page, pageSize: 10, total: 100))
        }
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        do {
            _ = try await walk(.pageNumber(scheme), transport: transport)
            Issue.record("expected an error")
        } catch {
            guard case .upstreamStatus(3, _, 500, _) = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test func invalidJSONPageIsAnError() async throws {
        let transport = FakeTransport { _ in .json("[{\"id\":1},") }
        do {
            _ = try await walk(.pageNumber(.init()), transport: transport)
            Issue.record("expected an error")
        } catch {
            guard case .invalidJSON(1, _, _) = error else { Issue.record("got \(error)"); return }
        }
    }
}

/// `lookahead`: with no total, pages past the last known one are fetched speculatively and discarded past the end.
@Suite struct SpeculativeLookaheadTests {
    @Test(arguments: [0, 5, 10, 35])
    func lookaheadKeepsOrderAndDiscardsPagesPastTheEnd(total: Int) async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.lookahead = 3
        let transport = FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            return .json(FakePages.body(page: page, pageSize: 10, total: total))
        }
        let walker = PageWalker.make(.pageNumber(scheme), transport: transport) { $0.concurrency = 4 }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: total))
        #expect(transport.peakInFlight <= 4)
        // Speculation fetches at most `lookahead` pages past the last one needed.
        let needed = total / 10 + 1
        #expect(transport.requestedURLs.count <= needed + 3)
    }
}
