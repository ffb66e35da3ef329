import Testing

@testable import PageProxyCore

/// `walk`: its fetches are children of its task group, so none is in flight once it has returned or thrown, however
/// it ended (checked at once, with no polling: an unstructured task cancelled by `finish()` would still be running).
@Suite struct StructuredWalkTests {
    private struct BodyFailure: Error {}

    /// 50 pages of 10 (the count from a header, so the window fans out); pages from 2 on never answer until cancelled,
    /// except page 2 when `pageTwo` says what it answers, once the rest of the window is in flight.
    private func upstream(pageTwo: UpstreamResponse? = nil, concurrency: Int) -> FakeTransport {
        let inFlight = Locked(0)
        let transport = FakeTransport { url throws(UpstreamError) in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            guard page > 1 else { return .json(FakePages.body(page: 1, pageSize: 10, total: 500), headers: [("X-Total-Pages", "50")]) }
            inFlight.withLock { $0 += 1 }
            if page == 2, let pageTwo {
                _ = await yieldUntil { inFlight.value == concurrency }
                return pageTwo
            }
            await untilCancelled()
            throw .cancelled
        }
        return transport
    }

    private func scheme() -> PaginationScheme {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.totalPagesHeader = "X-Total-Pages"
        return .pageNumber(scheme)
    }

    @Test func stoppedWalkLeavesNoFetchInFlight() async throws {
        let transport = upstream(concurrency: 4)
        let walker = PageWalker.make(scheme(), transport: transport) { $0.concurrency = 4 }
        var pages = 0
        try await walker.walk { _ in
            pages += 1
            #expect(await yieldUntil { transport.inFlight == 4 })
            return .stop
        }
        #expect(pages == 1)
        #expect(transport.inFlight == 0)
    }

    @Test func failedWalkLeavesNoFetchInFlight() async throws {
        let transport = upstream(pageTwo: UpstreamResponse(status: HTTPStatus(code: 500), headers: HTTPHeaders(), body: Array("{}".utf8)), concurrency: 4)
        let walker = PageWalker.make(scheme(), transport: transport) { $0.concurrency = 4 }
        do {
            try await walker.walk { _ in WalkStep.takeNext }
            Issue.record("the walk should have failed")
        } catch {
            guard case .upstreamStatus(page: 2, _, status: 500, _)? = error as? PaginationError else { Issue.record("got \(error)"); return }
        }
        #expect(transport.inFlight == 0)
    }

    @Test func bodyErrorEndsTheWalkAsIsAndLeavesNoFetchInFlight() async throws {
        let transport = upstream(concurrency: 3)
        let walker = PageWalker.make(scheme(), transport: transport) { $0.concurrency = 3 }
        await #expect(throws: BodyFailure.self) {
            try await walker.walk { _ in
                _ = await yieldUntil { transport.inFlight == 3 }
                throw BodyFailure()
            }
        }
        #expect(transport.inFlight == 0)
    }

    @Test func cancelledWalkIsCancelledAndLeavesNoFetchInFlight() async throws {
        let transport = upstream(concurrency: 4)
        let walking = Task { () -> (any Error)? in
            let walker = PageWalker.make(scheme(), transport: transport) { $0.concurrency = 4 }
            do {
                try await walker.walk { _ in
                    _ = await yieldUntil { transport.inFlight == 4 }
                    withUnsafeCurrentTask { $0?.cancel() }
                    return .takeNext
                }
            } catch {
                return error
            }
            return nil
        }
        let error = await walking.value
        guard case .cancelled? = error as? PaginationError else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.inFlight == 0)
    }

    /// Fetches that answer even when cancelled (as one past its last cancellation point does) stop the walk too.
    @Test func cancelledWalkStopsEvenWhenFetchesIgnoreCancellation() async throws {
        let transport = FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            return .json(FakePages.body(page: page, pageSize: 10, total: 10_000), headers: [("X-Total-Pages", "1000")])
        }
        let walking = Task { () -> (pages: Int, error: (any Error)?) in
            let walker = PageWalker.make(scheme(), transport: transport)
            var pages = 0
            do {
                try await walker.walk { _ in
                    pages += 1
                    if pages == 3 { withUnsafeCurrentTask { $0?.cancel() } }
                    return .takeNext
                }
            } catch {
                return (pages, error)
            }
            return (pages, nil)
        }
        let result = await walking.value
        #expect(result.pages == 3)
        guard case .cancelled? = result.error as? PaginationError else { Issue.record("got \(String(describing: result.error))"); return }
        #expect(transport.inFlight == 0)
        #expect(transport.requestedURLs.count < 100)
    }
}
