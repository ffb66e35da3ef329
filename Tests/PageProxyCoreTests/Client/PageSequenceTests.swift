import Testing

@testable import PageProxyCore

/// `PageSequence`'s iterator: a pull over `PageWalker.walk`, run by a producer task of its own.
@Suite struct PageSequenceTests {
    private static let source: PaginatedSource = {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.totalPagesHeader = "X-Total-Pages"
        return PaginatedSource(url: PageURL(string: "http://api.test/items")!, scheme: .pageNumber(scheme), limits: WalkLimits(concurrency: 3))
    }()

    /// 50 pages; the first answers, the others never do until cancelled.
    private static func stalledAfterFirstPage() -> FakeTransport {
        FakeTransport { url throws(UpstreamError) in
            guard url.queryValue("page").map({ $0 == "1" }) ?? true else {
                await untilCancelled()
                throw .cancelled
            }
            return .json(FakePages.body(page: 1, pageSize: 10, total: 500), headers: [("X-Total-Pages", "50")])
        }
    }

    @Test func anIteratorNotTakingHoldsTheWindowAndNoMore() async throws {
        let transport = Self.stalledAfterFirstPage()
        var iterator = PageProxyClient(transport: transport).pages(of: Self.source).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.number == 1)
        #expect(await yieldUntil { transport.inFlight == 3 })
        #expect(transport.requestedURLs.count == 4)
        #expect(transport.peakInFlight == 3)
    }

    @Test func aDroppedIteratorStopsItsWalk() async throws {
        let transport = Self.stalledAfterFirstPage()
        do {
            var iterator = PageProxyClient(transport: transport).pages(of: Self.source).makeAsyncIterator()
            _ = try await iterator.next()
            #expect(await yieldUntil { transport.inFlight == 3 })
        }
        // The iterator is gone: its producer task is cancelled, and with it the walk's fetches.
        #expect(await yieldUntil { transport.inFlight == 0 })
        #expect(transport.requestedURLs.count == 4)
    }

    @Test func aCancelledIterationEndsWithCancelled() async throws {
        let transport = Self.stalledAfterFirstPage()
        let iterating = Task { () -> PaginationError? in
            var iterator = PageProxyClient(transport: transport).pages(of: Self.source).makeAsyncIterator()
            do throws(PaginationError) {
                _ = try await iterator.next()
                // Waits for page 2, which never comes: the test cancels this task.
                _ = try await iterator.next()
            } catch {
                return error
            }
            return nil
        }
        #expect(await yieldUntil { transport.inFlight == 3 })
        iterating.cancel()
        guard case .cancelled? = await iterating.value else { Issue.record("expected .cancelled"); return }
        #expect(await yieldUntil { transport.inFlight == 0 })
    }
}
