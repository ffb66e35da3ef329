import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A walk through the cache after a restart, NDJSON or merged, asks for the entries of the pages past its window to be
/// read ahead (issue 13, read-back after a restart) and answers the same bytes; a walk through entries in memory asks
/// nothing.
@Suite struct ReadAheadEndToEndTests {
    /// 40 pages of 10 items, known ahead from the first page's `rel="last"`.
    static let target = "/github?mock_total=400"

    @Test func walksAfterARestartReadAheadAndWarmOnesDoNot() async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]]) { stack, config in
            let first = try await stack.get(Self.target, headers: ["Accept": "application/x-ndjson"])
            #expect(first.status == 200)
            let firstMerged = try await stack.get(Self.target)
            // A second process over the same directory, against the same upstream: a restart, as far as its cache knows.
            // The first walk is held at its first page handed out until every page past its window has been offered
            // to the read-ahead: otherwise the walk can read them all itself and end first (its read-ahead cancelled).
            let gate = ReadAheadGate()
            let restarted = try PageProxyApp.start(
                config: config, logger: Logger(level: .error), walkObserver: { _ in gate.holdOnce() })
            let store = try #require(restarted.pages.store)
            gate.watch(restarted.pages, store)
            func get(ndjson: Bool) async throws -> RawHTTPClient.Response {
                try await RawHTTPClient.connect(port: restarted.server.port).request(
                    Self.target, headers: ndjson ? ["Accept": "application/x-ndjson"] : [:])
            }
            do {
                let read = try await get(ndjson: true)
                #expect(read.body == first.body)
                await restarted.pages.waitForReadAhead()
                // Pages 2…5 are the first window, read at once; the 35 past it (fewer than a distance) are asked for
                // at once and read while the walk waits. The walk itself reads no file of the 35.
                #expect(gate.heldUntilReadAhead)
                let asked = restarted.pages.readAheadRequests
                #expect(asked == 1)
                #expect(store.readAheadAskedCount == 35)
                #expect(store.fileReadCount <= 40 - 35)
                // A merged answer reads ahead too (fifth pass: it holds its pages, and no copy competes with the thread
                // that reads): the NDJSON walk was the entries' first hit, which kept no copy, so it reads them again.
                let reads = store.fileReadCount
                let merged = try await get(ndjson: false)
                await restarted.pages.waitForReadAhead()
                #expect(merged.header("PageProxy-Cache") == "hits=40 misses=0 revalidated=0 stale=0 bypassed=0")
                #expect(merged.body == firstMerged.body)
                #expect(store.fileReadCount > reads)
                #expect(restarted.pages.readAheadRequests > asked)
                #expect(store.readAheadAskedCount <= 70)
                let (requests, looked) = (restarted.pages.readAheadRequests, store.readAheadAskedCount)
                // The merged walk kept the entries in memory: the next walk reads no file and asks for nothing.
                let again = store.fileReadCount
                let warm = try await get(ndjson: true)
                await restarted.pages.waitForReadAhead()
                #expect(warm.body == first.body)
                #expect(store.fileReadCount == again)
                #expect(restarted.pages.readAheadRequests == requests)
                #expect(store.readAheadAskedCount == looked)
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }

    /// After a restart the first page is read from its file by `InMemoryAnswer`, which declines (the page is not the
    /// last), before the walk begins: the walk's read-ahead is wanted from that first page on, not only once the walk
    /// has read the whole first window itself (issue 13, thirteenth pass). A first page found in memory (its second
    /// lookup since the restart) still says nothing: a walk through entries in memory reads nothing ahead, even while
    /// another request reads files (review18 R5: the store's global count was compared, and said yes).
    @Test func aFirstPageReadFromItsFileBeforeTheWalkWantsTheReadAhead() async throws {
        let target = "/github?mock_total=60"
        let other = "/github?mock_total=70"
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]]) { stack, config in
            #expect(try await stack.get(target).status == 200)
            #expect(try await stack.get(other).status == 200)
            let restarted = try PageProxyApp.start(config: config, logger: Logger(level: .error))
            do {
                let route = try #require(config.routes.first)
                let request = HTTPRequestHead(method: .get, target: target, headers: HTTPHeaders([("Host", "x")]))
                let plan = try RequestPlan(request: request, route: route, subpath: "", lookahead: LookaheadMemory())
                // As `InMemoryAnswer` looks the first page up, twice: from its file, then (seen before) from memory.
                // (A merged answer's plan: the first read is kept in memory at once, `CachePolicy.keepsFirstRead`.)
                func firstRead(of plan: RequestPlan) throws -> FirstPageRead {
                    let upstream = UpstreamRequest(url: try #require(plan.options.firstPage), headers: plan.upstreamHeaders, caFile: route.caFile)
                    return FirstPageRead(countsFileReads: true) { tally in
                        restarted.pages.freshHit(upstream, key: plan.firstPageKey, policy: plan.cachePolicy, tally: tally)
                    }
                }
                func readAhead(after read: FirstPageRead) throws -> PageReadAhead {
                    let fileReads = try #require(read.fileReads)
                    return try #require(RoutePageFetcher.makeReadAhead(plan: plan, pages: restarted.pages, fileReads: fileReads))
                }
                let fromFile = try firstRead(of: plan)
                #expect(fromFile.fetched != nil)
                #expect(try readAhead(after: fromFile).isWanted())
                let fromMemory = try firstRead(of: plan)
                #expect(fromMemory.fetched != nil)
                let afterMemory = try readAhead(after: fromMemory)
                #expect(!afterMemory.isWanted())
                // Another request reads its first page from its file meanwhile: the store counts a file read, this walk none.
                let store = try #require(restarted.pages.store)
                let before = store.fileReadCount
                let otherHead = HTTPRequestHead(method: .get, target: other, headers: HTTPHeaders([("Host", "x")]))
                let otherPlan = try RequestPlan(request: otherHead, route: route, subpath: "", lookahead: LookaheadMemory())
                #expect(try firstRead(of: otherPlan).fetched != nil)
                #expect(store.fileReadCount > before)
                #expect(!afterMemory.isWanted())
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }
}

/// Holds the first walk that hands out a page until its read-ahead has been offered every page past its window (fewer
/// than `PageWalker.readAheadDistance`), polling with a bound, and has read them; later walks pass.
private final class ReadAheadGate: Sendable {
    private struct State {
        var watched: (pages: CachingPageSource, store: DiskStore)?
        var held = false
        var heldUntilReadAhead = false
    }
    private let state = Mutex(State())
    /// The pages past the first window (40 − 5), all asked for at once: fewer than `PageWalker.readAheadDistance`.
    private static let distance = 35

    func watch(_ pages: CachingPageSource, _ store: DiskStore) { state.withLock { $0.watched = (pages, store) } }

    /// Whether the held walk saw every page past its window offered before the bound ran out.
    var heldUntilReadAhead: Bool { state.withLock { $0.heldUntilReadAhead } }

    func holdOnce() {
        guard let (pages, store) = state.withLock({ state -> (CachingPageSource, DiskStore)? in
            guard !state.held, let watched = state.watched else { return nil }
            state.held = true
            return watched
        }) else { return }
        // The walk's thread is held (the observer is synchronous): a thread of the cooperative pool, on purpose, for
        // as long as the read-ahead thread takes, which needs no thread of the pool to finish.
        let deadline = ContinuousClock.now + .seconds(20)
        while store.readAheadAskedCount < Self.distance, ContinuousClock.now < deadline { usleep(1_000) }
        let requests = pages.readAheadRequests
        while pages.readAheadsRun < requests, ContinuousClock.now < deadline { usleep(1_000) }
        let asked = store.readAheadAskedCount >= Self.distance && pages.readAheadsRun >= requests
        state.withLock { $0.heldUntilReadAhead = asked }
    }
}
