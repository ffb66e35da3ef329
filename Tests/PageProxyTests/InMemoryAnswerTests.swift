import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A walk of one page fresh in the cache is answered from the page's entry with no walk (`InMemoryAnswer`), byte for
/// byte and count for count as the walk answers it; anything else falls back to the walk, having sent and counted
/// nothing and looked the page up once (issue 13).
@Suite struct InMemoryAnswerTests {
    /// Two proxies over one page cache and one clock: `lean` tries the answer with no walk, `walked` always walks.
    final class Pair: Sendable {
        /// The lean proxy, with the cache and the clock.
        private let cached = WalkFromMemoryTests.CachedProxy(walksOnSocketLoop: false)
        let walked: InMemoryProxy
        var lean: InMemoryProxy { cached.proxy }
        var store: DiskStore { cached.store }
        var wall: ManualWallClock { cached.wall }

        init() {
            walked = InMemoryProxy(cache: cached.store, clock: cached.wall.clock, triesInMemoryAnswer: false)
        }

        /// How many requests `lean` answered with no walk.
        var answeredWithNoWalk: Int { lean.responder.aggregate.inMemory.answered.value }

        /// `target` asked of `walked`, then of `lean`: both answers, the same, each counted the same in its metrics;
        /// and whether `lean` answered it with no walk.
        func compare(
            _ target: String, method: HTTPMethod = .get, headers: [(String, String)] = [], sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> (answer: InMemoryProxy.Answer, withNoWalk: Bool) {
            let walkedBefore = Self.counts(walked.metrics)
            let fromWalk = try await walked.request(target, method: method, headers: headers)
            let walkedCounted = Self.change(from: walkedBefore, to: Self.counts(walked.metrics))
            let (leanBefore, answered) = (Self.counts(lean.metrics), answeredWithNoWalk)
            let fromLean = try await lean.request(target, method: method, headers: headers)
            #expect(Self.change(from: leanBefore, to: Self.counts(lean.metrics)) == walkedCounted, "\(target)", sourceLocation: sourceLocation)
            WalkFromMemoryTests.expectSame(fromLean, fromWalk)
            #expect(fromLean.writes == fromWalk.writes, "\(target)", sourceLocation: sourceLocation)
            return (fromLean, answeredWithNoWalk > answered)
        }

        /// `target` asked of `walked` (on the pool), then of `lean`'s `respondFromMemory` (on the socket loop): the
        /// loop's answer, the same as the pool's and counted the same; nil when it declined (with nothing counted).
        func compareOnLoop(_ target: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> InMemoryProxy.Answer? {
            let walkedBefore = Self.counts(walked.metrics)
            let fromWalk = try await walked.request(target)
            var walkedCounted = Self.change(from: walkedBefore, to: Self.counts(walked.metrics))
            // `request` leaves its answer in flight; `requestFromMemory` tells the responder it was answered.
            walkedCounted["pageproxy_requests_in_flight"] = nil
            let leanBefore = Self.counts(lean.metrics)
            guard let fromLoop = try await lean.requestFromMemory(target) else {
                #expect(Self.counts(lean.metrics) == leanBefore, "\(target)", sourceLocation: sourceLocation)
                return nil
            }
            #expect(Self.change(from: leanBefore, to: Self.counts(lean.metrics)) == walkedCounted, "\(target)", sourceLocation: sourceLocation)
            WalkFromMemoryTests.expectSame(fromLoop, fromWalk)
            return fromLoop
        }

        /// The page and request counters of `metrics`, by line.
        private static func counts(_ metrics: Metrics) -> [String: Int] {
            var counts: [String: Int] = [:]
            for line in metrics.exposition().split(separator: "\n")
            where ["pageproxy_cache_pages_total", "pageproxy_upstream_pages_total", "pageproxy_requests_in_flight", "pageproxy_upstream_retries"]
                .contains(where: { line.hasPrefix($0) })
            {
                let parts = line.split(separator: " ")
                counts[String(parts[0])] = Int(parts[parts.count - 1])
            }
            return counts
        }

        private static func change(from before: [String: Int], to after: [String: Int]) -> [String: Int] {
            after.compactMapValues { $0 }.reduce(into: [:]) { change, line in
                let moved = line.value - (before[line.key] ?? 0)
                if moved != 0 { change[line.key] = moved }
            }
        }
    }

    @Test("every scheme's one-page walk, merged and NDJSON, GET and HEAD, with and without If-None-Match (a tag, *): the walk's answer, with no walk")
    func everySchemeIsAnsweredAsTheWalkAnswers() async throws {
        let pair = Pair()
        // An offset route with no total asks the page after a short first page (a cap or the end: real18 F1b), so no
        // walk of it is one page.
        for name in SchemeRoutes.names where name != "offset" {
            let target = "/\(name)?mock_total=7"
            // Stored by a first walk (a miss); every answer after is of a fresh hit.
            let stored = try await pair.walked.request(target)
            #expect(stored.record.cache == "hits=0 misses=1 revalidated=0 stale=0 bypassed=0", "\(name)")
            let etag = try #require(stored.response.header("ETag"), "\(name)")
            for format in ["", "&_format=ndjson"] {
                for method in [HTTPMethod.get, .head] {
                    for headers in [[], [("If-None-Match", etag)], [("If-None-Match", "*")]] as [[(String, String)]] {
                        let (answer, withNoWalk) = try await pair.compare(target + format, method: method, headers: headers)
                        #expect(answer.record.cache == "hits=1 misses=0 revalidated=0 stale=0 bypassed=0", "\(name)\(format) \(method)")
                        // An NDJSON HEAD is the stream's head: the walk's.
                        #expect(withNoWalk == (format.isEmpty || method == .get), "\(name)\(format) \(method) \(headers)")
                        // An NDJSON answer has no entity tag: only `*` matches it (`ClientPreconditions`).
                        let notModified = (format.isEmpty && !headers.isEmpty) || headers.first?.1 == "*"
                        #expect(answer.response.status == (notModified ? 304 : 200), "\(name)\(format) \(method) \(headers)")
                    }
                }
            }
        }
    }

    @Test("with no memo, a repeat is sent from what the first answer of the page's stored version worked out, as the walk answers it; a page stored again is worked out again")
    func aRepeatIsSentFromThePreparedAnswer() async throws {
        let pair = Pair()
        let prepared = pair.lean.responder.aggregate.inMemory.answeredPrepared
        for (round, target) in ["/plain?mock_total=7", "/github?mock_total=4", "/slack?mock_total=0"].enumerated() {
            // Stored by a walk (a miss); the first answer of the hit works the answer out, with no walk.
            _ = try await pair.walked.request(target)
            let first = try await pair.compare(target)
            #expect(first.withNoWalk, "\(target)")
            #expect(prepared.value == 5 * round, "\(target)")
            let etag = try #require(first.answer.response.header("ETag"), "\(target)")
            // Every repeat of this version, GET and HEAD, with and without preconditions: from it, the walk's answer.
            var repeats = 0
            for (method, headers) in [
                (HTTPMethod.get, []), (.head, []), (.get, [("If-None-Match", etag)]), (.get, [("If-Match", "\"other\"")]), (.get, []),
            ] as [(HTTPMethod, [(String, String)])] {
                let (answer, withNoWalk) = try await pair.compare(target, method: method, headers: headers)
                repeats += 1
                #expect(withNoWalk, "\(target) \(method) \(headers)")
                #expect(prepared.value == 5 * round + repeats, "\(target) \(method) \(headers)")
                #expect(answer.response.status == (headers.isEmpty ? 200 : headers[0].0 == "If-Match" ? 412 : 304), "\(target) \(headers)")
            }
        }
        // Stale, then revalidated by the walk: stored again (a new generation), so the next answer is worked out again.
        pair.wall.advance(seconds: 61)
        let target = "/plain?mock_total=7"
        _ = try await pair.walked.request(target)
        let count = prepared.value
        let refreshed = try await pair.compare(target)
        #expect(refreshed.withNoWalk)
        #expect(prepared.value == count)
        _ = try await pair.compare(target)
        #expect(prepared.value == count + 1)
    }

    @Test("a walk of more than one page falls back to the walk, its first page looked up once")
    func aLongerWalkFallsBack() async throws {
        let pair = Pair()
        for target in ["/plain?mock_total=15", "/github?mock_total=25&_format=ndjson", "/slack?mock_total=12"] {
            _ = try await pair.walked.request(target)
            let uses = pair.store.useCount
            _ = try await pair.walked.request(target)
            let walkUses = pair.store.useCount - uses
            let (answer, withNoWalk) = try await pair.compare(target)
            #expect(!withNoWalk, "\(target)")
            #expect(answer.record.cache?.hasPrefix("hits=\(answer.record.pages ?? 0) misses=0") == true, "\(target)")
            #expect(pair.store.useCount - uses == 3 * walkUses, "\(target): the lean answer's lookup is the walk's first")
        }
    }

    @Test("a page not stored, or stale, falls back to the walk, which fetches or revalidates it, the cache looked in once")
    func aPageNotFreshFallsBack() async throws {
        let pair = Pair()
        // Two targets as alike as two: one for each proxy, so that neither finds what the other stored.
        try await Self.expectWalked(pair, lean: "/plain?mock_total=6", walked: "/plain?mock_total=7", cache: "hits=0 misses=1")
        pair.wall.advance(seconds: 61)
        try await Self.expectWalked(pair, lean: "/plain?mock_total=6", walked: "/plain?mock_total=7", cache: "hits=0 misses=0 revalidated=1")
    }

    /// `lean` asked of the lean proxy is walked as `walked` is by the other: the same cache outcomes, upstream requests
    /// and uses of the cache.
    private static func expectWalked(_ pair: Pair, lean: String, walked: String, cache: String) async throws {
        let (uses, asked) = (pair.store.useCount, pair.walked.mock.log.count)
        let fromWalk = try await pair.walked.request(walked)
        let (walkUses, walkAsked) = (pair.store.useCount - uses, pair.walked.mock.log.count - asked)
        let before = (pair.answeredWithNoWalk, pair.lean.mock.log.count, pair.store.useCount)
        let fromLean = try await pair.lean.request(lean)
        #expect(pair.answeredWithNoWalk == before.0)
        #expect(fromWalk.record.cache?.hasPrefix(cache) == true)
        #expect(fromLean.record.cache == fromWalk.record.cache)
        #expect(pair.lean.mock.log.count - before.1 == walkAsked)
        #expect(pair.store.useCount - before.2 == walkUses)
    }

    @Test("on the socket loop: a one-page walk in memory is answered as the pool answers it; a longer one, or a page not in memory, declines")
    func onTheSocketLoop() async throws {
        let pair = Pair()
        for target in ["/plain?mock_total=7", "/github?mock_total=5&_format=ndjson", "/slack?mock_total=9", "/drf?mock_total=3&_format=ndjson"] {
            // Stored, then read back once (kept in memory), and planned by the lean proxy.
            _ = try await pair.walked.request(target)
            _ = try await pair.lean.request(target)
            let answered = pair.answeredWithNoWalk
            #expect(try await pair.compareOnLoop(target) != nil, "\(target)")
            #expect(pair.answeredWithNoWalk == answered + 1)
        }
        // Longer: declined, and its plan's next requests go to the pool without a look.
        _ = try await pair.walked.request("/plain?mock_total=15")
        _ = try await pair.lean.request("/plain?mock_total=15")
        #expect(try await pair.compareOnLoop("/plain?mock_total=15") == nil)
        let uses = pair.store.useCount
        #expect(try await pair.lean.requestFromMemory("/plain?mock_total=15") == nil)
        #expect(pair.store.useCount == uses)
        // Stored but not read back: not in memory, declined with no use of the cache.
        _ = try await pair.lean.request("/gitlab?mock_total=4")
        let (stored, metrics) = (pair.store.useCount, pair.lean.metrics.exposition())
        #expect(try await pair.lean.requestFromMemory("/gitlab?mock_total=4") == nil)
        #expect(pair.store.useCount == stored)
        #expect(pair.lean.metrics.exposition() == metrics)
    }

    @Test("a merged answer with no walk is memoized as the walk's is: the next request is the memo's, the same bytes")
    func theAnswerIsMemoized() async throws {
        let pages = MergedAnswerMemoTests.Store(maxBytes: 64 << 20)
        let wall = ManualWallClock()
        let proxy = InMemoryProxy(cache: pages.store, clock: wall.clock, memoBytes: 1 << 20)
        let memo = proxy.responder.aggregate.merged.memo
        // Stored by another proxy over the cache: this one's first answer is a hit, answered with no walk, and memoized.
        _ = try await InMemoryProxy(cache: pages.store, clock: wall.clock).request("/plain?mock_total=7")
        let noWalk = try await proxy.request("/plain?mock_total=7")
        #expect(proxy.responder.aggregate.inMemory.answered.value == 1)
        #expect(memo.count == 1)
        let memoized = try await proxy.request("/plain?mock_total=7")
        #expect(proxy.responder.aggregate.inMemory.answered.value == 1)
        // The memo writes its prepared fields first (as after any walk): the same fields, in its own order.
        #expect(memoized.response.status == noWalk.response.status)
        #expect(memoized.response.body == noWalk.response.body)
        #expect(WalkFromMemoryTests.fields(memoized).sorted() == WalkFromMemoryTests.fields(noWalk).sorted())
        #expect(memoized.record == noWalk.record)
    }

    @Test("on the pool, respondPreferringMemory answers as respondFromMemory and then respond do, and says which it was")
    func preferringMemoryOnThePool() async throws {
        let pages = MergedAnswerMemoTests.Store(maxBytes: 64 << 20)
        let wall = ManualWallClock()
        let proxy = InMemoryProxy(cache: pages.store, clock: wall.clock, memoBytes: 1 << 20)
        // Its own cache: over a shared one it could find the answer entry `proxy` kept in the background (persisted
        // answers), whose body is in its file and never sent on the loop, and answer otherwise by a race.
        let otherPages = MergedAnswerMemoTests.Store(maxBytes: 64 << 20)
        let other = InMemoryProxy(cache: otherPages.store, clock: wall.clock, memoBytes: 1 << 20)
        // A memo hit (the first answer was memoized): from memory, as `respondFromMemory` answers it.
        for target in ["/plain?mock_total=7", "/slack?mock_total=7&_format=ndjson", "/nope", "/healthz"] {
            _ = try await proxy.request(target)
            _ = try await other.request(target)
            let (answer, fromMemory) = try await proxy.requestPreferringMemory(target)
            let expected = try await other.requestFromMemory(target)
            #expect(fromMemory == (expected != nil), "\(target)")
            let fromRespond = try await other.request(target)
            #expect(answer.response.status == fromRespond.response.status, "\(target)")
            #expect(answer.response.body == fromRespond.response.body, "\(target)")
            #expect(answer.record == fromRespond.record, "\(target)")
        }
        withExtendedLifetime(otherPages) {}
        #expect(proxy.metrics.exposition().contains("pageproxy_requests_in_flight 4"))
        // With the loop's one-page answer on, a one-page walk in memory is one from memory too.
        let onLoop = InMemoryProxy(cache: pages.store, clock: wall.clock, answersOnePageOnSocketLoop: true)
        _ = try await onLoop.request("/github?mock_total=7")
        _ = try await onLoop.request("/github?mock_total=7")
        #expect(try await onLoop.requestPreferringMemory("/github?mock_total=7").fromMemory)
    }

    @Test("requests the answer does not decide alone are walked: caps, windows, fields, explain, fresh, trailers")
    func otherRequestsAreWalked() async throws {
        let pair = Pair()
        _ = try await pair.walked.request("/plain?mock_total=7")
        _ = try await pair.walked.request("/slack?mock_total=7")
        for target in [
            "/plain?mock_total=7&_max_items=3", "/plain?mock_total=7&_max_pages=1", "/plain?mock_total=7&_offset=2&_limit=3",
            "/plain?mock_total=7&_fields=id", "/plain?mock_total=7&_fresh=1", "/slack?mock_total=7&_max_items=3&_format=ndjson",
        ] {
            _ = try await pair.walked.request(target)
            let (_, withNoWalk) = try await pair.compare(target)
            #expect(!withNoWalk, "\(target)")
        }
        let trailers = try await pair.compare("/slack?mock_total=7&_format=ndjson", headers: [("TE", "trailers")])
        #expect(!trailers.withNoWalk)
        let explained = pair.answeredWithNoWalk
        let explain = try await pair.lean.request("/plain?mock_total=7&_explain=1")
        #expect(explain.response.status == 200)
        #expect(pair.answeredWithNoWalk == explained)
    }
}
