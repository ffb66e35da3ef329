import PageProxyMock
import Foundation
import Synchronization
import Testing

@testable import PageProxyCore

/// The cache in front of a transport: hits, misses, 304 revalidation, forced revalidation, stale-if-error,
/// bypass, credentials, and collapsing, against a scripted upstream and a manual clock.
@Suite struct CachingPageSourceTests {
    /// An upstream that answers with a closure and records every request it receives, headers included.
    final class Upstream: UpstreamTransport {
        private let record = Locked<[UpstreamRequest]>([])
        private let answer: @Sendable (UpstreamRequest) async throws(UpstreamError) -> UpstreamResponse

        init(answer: @escaping @Sendable (UpstreamRequest) async throws(UpstreamError) -> UpstreamResponse) {
            self.answer = answer
        }

        /// An upstream with one page whose ETag is `etag` (a box, so a test can change the page).
        static func withETag(_ etag: Locked<String>, cacheControl: String? = nil) -> Upstream {
            Upstream { request throws(UpstreamError) in
                let current = etag.withLock { $0 }
                if request.headers["If-None-Match"] == current {
                    return UpstreamResponse(status: HTTPStatus(code: 304), headers: HTTPHeaders([("ETag", current)]), body: [])
                }
                var headers = HTTPHeaders([("ETag", current), ("Content-Type", "application/json")])
                if let cacheControl { headers.add("Cache-Control", cacheControl) }
                return UpstreamResponse(status: .ok, headers: headers, body: Array("[\(current)]".utf8))
            }
        }

        var requests: [UpstreamRequest] { record.withLock { $0 } }

        func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
            record.withLock { $0.append(request) }
            return try await answer(request)
        }
    }

    let directory = TemporaryDirectory()
    let clock = ManualClock()
    /// Long: a request stops waiting for a fetch at its page timeout (on the real clock here), and these tests hold the
    /// fakes' answers at gates, for as long as a loaded machine takes to let every task reach them.
    static let pageTimeout = Duration.seconds(600)
    let request = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!, headers: HTTPHeaders([("Authorization", "Bearer a")]))
    let policy = CachePolicy(ttl: .seconds(60))

    func makeSource() -> CachingPageSource {
        CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20), clock: clock.clock)
    }

    func fetch(_ source: CachingPageSource, _ upstream: Upstream, policy: CachePolicy? = nil, request: UpstreamRequest? = nil) async throws
        -> CachingPageSource.Fetched
    {
        try await source.fetch(request ?? self.request, policy: policy ?? self.policy, transport: upstream, timeout: Self.pageTimeout, maxBodyBytes: 1 << 20)
    }

    @Test("review9 G3: pages stale on arrival by their Date alone are each counted, and told once per origin per interval")
    func pagesStaleByTheirDateAreCountedAndToldOncePerOrigin() async throws {
        let told = Locked<[String]>([])
        let source = CachingPageSource(
            store: DiskStore(directory: directory.path, maxBytes: 1 << 20), clock: clock.clock, onStaleByDate: { origin, behind in
                told.withLock { $0.append("\(origin) \(behind.components.seconds)") }
            })
        let now = clock.clock.wallNow()
        let upstream = Upstream { request throws(UpstreamError) in
            let date = request.url.origin.host == "slow.test" ? now.addingTimeInterval(-3600) : now
            return UpstreamResponse(
                status: .ok, headers: HTTPHeaders([("Cache-Control", "max-age=60"), ("Date", HTTPDate.format(date))]), body: Array("[1]".utf8))
        }
        for page in 1...3 {
            let fetched = try await fetch(source, upstream, request: UpstreamRequest(url: PageURL(string: "http://slow.test/items?page=\(page)")!))
            #expect(fetched.outcome == .miss)
        }
        _ = try await fetch(source, upstream, request: UpstreamRequest(url: PageURL(string: "http://right.test/items?page=1")!))
        #expect(source.pagesStaleByDate == 3)
        #expect(told.withLock { $0 } == ["http://slow.test 3600"])
        // Nothing of it is a hit: asked again, the upstream answers again (and the count goes on).
        _ = try await fetch(source, upstream, request: UpstreamRequest(url: PageURL(string: "http://slow.test/items?page=1")!))
        #expect(upstream.requests.count == 5)
        #expect(source.pagesStaleByDate == 4)
        #expect(told.withLock { $0.count } == 1)
        // A page that is never stored loses nothing to its Date: not counted.
        let noStore = Upstream { _ throws(UpstreamError) in
            UpstreamResponse(
                status: .ok, headers: HTTPHeaders([("Cache-Control", "no-store, max-age=60"), ("Date", HTTPDate.format(now.addingTimeInterval(-3600)))]),
                body: Array("[1]".utf8))
        }
        _ = try await fetch(source, noStore, request: UpstreamRequest(url: PageURL(string: "http://slow.test/items?page=9")!))
        #expect(source.pagesStaleByDate == 4)
    }

    @Test("review9 G3: an origin is told about again once the interval has passed, not before")
    func theNoticeTellsAnOriginAgainAfterItsInterval() {
        let told = Locked(0)
        let notice = StaleByDateNotice(interval: .seconds(600)) { _, _ in told.withLock { $0 += 1 } }
        let start = ContinuousClock.now
        notice.note(origin: "http://a.test", behind: .seconds(90), at: start)
        notice.note(origin: "http://a.test", behind: .seconds(90), at: start + .seconds(599))
        #expect(told.withLock { $0 } == 1)
        notice.note(origin: "http://a.test", behind: .seconds(90), at: start + .seconds(600))
        notice.note(origin: "http://b.test", behind: .seconds(90), at: start + .seconds(600))
        #expect(told.withLock { $0 } == 3)
        #expect(notice.count == 4)
    }

    @Test("review9 G5: a page the upstream disowns (no-store) or replaces once the exit began is gone after the restart, not served again")
    func aPageDisownedAsTheExitBeganIsGoneAfterTheRestart() async throws {
        let source = makeSource()
        let etag = Locked("\"1\"")
        _ = try await fetch(source, Upstream.withETag(etag))
        let other = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=2")!, headers: request.headers)
        _ = try await fetch(source, Upstream.withETag(etag), request: other)
        #expect(await source.finishWrites(within: .seconds(30)))
        // The exit began; flights still running hear from the upstream: page 1 is no-store now, page 2 has changed.
        etag.withLock { $0 = "\"2\"" }
        let disowned = try await fetch(source, Upstream.withETag(etag, cacheControl: "no-store"), policy: CachePolicy(ttl: .seconds(60), forceRevalidate: true))
        #expect(disowned.response.body == Array("[\"2\"]".utf8))
        let changed = try await fetch(source, Upstream.withETag(etag), policy: CachePolicy(ttl: .seconds(60), forceRevalidate: true), request: other)
        #expect(changed.stored == nil, "not written: the exit began")
        // The restart: neither old version is there to be served.
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(restarted.read(CacheKey(request)) == nil)
        #expect(restarted.read(CacheKey(other)) == nil)
    }

    @Test func aWarmRepeatIsAHitWithNoUpstreamRequest() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""))
        let source = makeSource()
        let first = try await fetch(source, upstream)
        #expect(first.outcome == .miss)
        clock.advance(by: .seconds(59))
        let second = try await fetch(source, upstream)
        #expect(second.outcome == .hit)
        #expect(second.response.body == first.response.body)
        #expect(second.response.headers["ETag"] == "\"1\"")
        #expect(upstream.requests.count == 1)
        #expect(upstream.requests[0].headers["If-None-Match"] == nil)
    }

    @Test func aStaleEntryIsRevalidatedAndA304RefreshesIt() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""))
        let source = makeSource()
        let first = try await fetch(source, upstream)
        clock.advance(by: .seconds(61))
        let second = try await fetch(source, upstream)
        #expect(second.outcome == .revalidated)
        #expect(second.response.status == .ok)
        #expect(second.response.body == first.response.body)
        #expect(upstream.requests.count == 2)
        #expect(upstream.requests[1].headers["If-None-Match"] == "\"1\"")
        // The 304 made it fresh for another TTL.
        clock.advance(by: .seconds(59))
        #expect(try await fetch(source, upstream).outcome == .hit)
        #expect(upstream.requests.count == 2)
    }

    @Test func aChangedPageIsDownloadedAndReplacesTheEntry() async throws {
        let etag = Locked("\"1\"")
        let upstream = Upstream.withETag(etag)
        let source = makeSource()
        _ = try await fetch(source, upstream)
        etag.withLock { $0 = "\"2\"" }
        clock.advance(by: .seconds(61))
        let changed = try await fetch(source, upstream)
        #expect(changed.outcome == .miss)
        #expect(changed.response.body == Array("[\"2\"]".utf8))
        #expect(try await fetch(source, upstream).response.body == Array("[\"2\"]".utf8))
        #expect(upstream.requests.count == 2)
    }

    @Test func a304MergesNewValidators() async throws {
        let upstream = Upstream { request throws(UpstreamError) in
            if request.headers["If-None-Match"] != nil {
                return UpstreamResponse(
                    status: HTTPStatus(code: 304), headers: HTTPHeaders([("ETag", "\"old\""), ("Last-Modified", "Mon, 07 Nov 1994 08:49:37 GMT")]), body: [])
            }
            return UpstreamResponse(status: .ok, headers: HTTPHeaders([("ETag", "\"old\""), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")]), body: Array("[1]".utf8))
        }
        let source = makeSource()
        _ = try await fetch(source, upstream)
        clock.advance(by: .seconds(61))
        #expect(try await fetch(source, upstream).outcome == .revalidated)
        clock.advance(by: .seconds(61))
        _ = try await fetch(source, upstream)
        #expect(upstream.requests[1].headers["If-None-Match"] == "\"old\"")
        #expect(upstream.requests[1].headers["If-Modified-Since"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(upstream.requests[2].headers["If-Modified-Since"] == "Mon, 07 Nov 1994 08:49:37 GMT")
    }

    @Test("a 304 answered without a redirect drops the answered URL an earlier redirect stored: the page's links resolve against its own URL again (review20 L1)")
    func aNotModifiedWithoutRedirectForgetsTheOldTarget() async throws {
        let (asked, moved) = ("http://api.test/items?page=1", "http://api.test/v2/items?page=1")
        let redirects = Locked(true)
        let upstream = Upstream { request throws(UpstreamError) in
            if request.url.description == asked, redirects.withLock({ $0 }) {
                return UpstreamResponse(status: HTTPStatus(code: 301), headers: HTTPHeaders([("Location", "/v2/items?page=1")]), body: [])
            }
            if request.headers["If-None-Match"] == "\"v1\"" {
                return UpstreamResponse(status: HTTPStatus(code: 304), headers: HTTPHeaders([("ETag", "\"v1\"")]), body: [])
            }
            return UpstreamResponse(status: .ok, headers: HTTPHeaders([("ETag", "\"v1\""), ("Link", "<?page=2>; rel=\"next\"")]), body: Array("[1]".utf8))
        }
        let transport = RedirectingTransport(base: upstream)
        let source = makeSource()
        func fetch() async throws -> CachingPageSource.Fetched {
            try await source.fetch(request, policy: policy, transport: transport, timeout: Self.pageTimeout, maxBodyBytes: 1 << 20)
        }
        #expect(try await fetch().response.headers[RedirectingTransport.answeredURLField] == moved)
        // The upstream no longer redirects; the revalidation of the page's own URL is answered by that URL.
        redirects.withLock { $0 = false }
        clock.advance(by: .seconds(61))
        let revalidated = try await fetch()
        #expect(revalidated.outcome == .revalidated)
        #expect(upstream.requests.last?.url.description == asked)
        #expect(revalidated.response.headers[RedirectingTransport.answeredURLField] == nil)
        // Stored so: the next hit resolves its links against the page's own URL.
        let hit = try await fetch()
        #expect(hit.outcome == .hit)
        #expect(hit.response.headers[RedirectingTransport.answeredURLField] == nil)
    }

    /// attack6 F8 — RFC 9111 §4.3.4: a 304 whose strong ETag is not the one stored updates nothing; the page is
    /// fetched again, unconditionally, and that 200 is what is stored (it relabelled the old body with the new tag).
    @Test("a 304 naming another strong ETag neither refreshes nor relabels the stored page: it is fetched unconditionally")
    func a304WithAnotherStrongETagIsNotTaken() async throws {
        let page = Locked(1)
        let upstream = Upstream { request throws(UpstreamError) in
            let version = page.withLock { $0 }
            if request.headers["If-None-Match"] != nil {
                return UpstreamResponse(status: HTTPStatus(code: 304), headers: HTTPHeaders([("ETag", "\"v\(version)\"")]), body: [])
            }
            return UpstreamResponse(status: .ok, headers: HTTPHeaders([("ETag", "\"v\(version)\"")]), body: Array("[\(version)]".utf8))
        }
        let source = makeSource()
        _ = try await fetch(source, upstream)
        page.withLock { $0 = 2 }
        clock.advance(by: .seconds(61))
        let refetched = try await fetch(source, upstream)
        #expect(refetched.outcome == .miss)
        #expect(refetched.response.body == Array("[2]".utf8))
        #expect(upstream.requests.count == 3)
        #expect(upstream.requests[1].headers["If-None-Match"] == "\"v1\"")
        #expect(upstream.requests[2].headers["If-None-Match"] == nil)
        // Stored as fetched: a hit with its own body, and the next revalidation sends its own tag.
        #expect(try await fetch(source, upstream).response.body == Array("[2]".utf8))
        clock.advance(by: .seconds(61))
        #expect(try await fetch(source, upstream).outcome == .revalidated)
        #expect(upstream.requests[3].headers["If-None-Match"] == "\"v2\"")
    }

    @Test("which 304 names a stored entry: no ETag, the same strong one, the same weak opaque tag")
    func whichNotModifiedNamesTheEntry() {
        func entry(_ etag: String?) -> CacheEntry {
            CacheEntry(status: .ok, headers: HTTPHeaders(etag.map { [("ETag", $0)] } ?? []), body: [], storedAt: Date(), freshUntil: Date())
        }
        func named(_ stored: String?, _ sent: String?) -> Bool {
            entry(stored).isNamed(byNotModified: HTTPHeaders(sent.map { [("ETag", $0)] } ?? []))
        }
        #expect(named("\"a\"", nil) && named(nil, nil) && named("\"a\"", "\"a\"") && named("W/\"a\"", "W/\"a\"") && named("\"a\"", "W/\"a\""))
        #expect(!named("\"a\"", "\"b\"") && !named("W/\"a\"", "\"a\"") && !named(nil, "\"a\"") && !named("W/\"a\"", "W/\"b\""))
    }

    @Test("a 304 with no ETag names the entry only by the Last-Modified stored, when it carries one (review15 R5)")
    func aNotModifiedWithoutETagIsMatchedByLastModified() {
        let monday = "Mon, 23 Nov 2026 10:00:00 GMT", tuesday = "Tue, 24 Nov 2026 10:00:00 GMT"
        let stored = CacheEntry(
            status: .ok, headers: HTTPHeaders([("ETag", "\"a\""), ("Last-Modified", monday)]), body: [], storedAt: Date(), freshUntil: Date())
        #expect(stored.isNamed(byNotModified: HTTPHeaders([("Last-Modified", monday)])))
        #expect(!stored.isNamed(byNotModified: HTTPHeaders([("Last-Modified", tuesday)])), "another version's date")
        #expect(stored.isNamed(byNotModified: HTTPHeaders([("ETag", "\"a\""), ("Last-Modified", tuesday)])), "a strong ETag decides")
        #expect(stored.isNamed(byNotModified: HTTPHeaders()), "no validator at all: the version asked about")
        // Stored with an ETag only: a 304 with a date alone does not name it (review16 R6).
        let tagged = CacheEntry(status: .ok, headers: HTTPHeaders([("ETag", "\"a\"")]), body: [], storedAt: Date(), freshUntil: Date())
        #expect(!tagged.isNamed(byNotModified: HTTPHeaders([("Last-Modified", monday)])))
        let bare = CacheEntry(status: .ok, headers: HTTPHeaders(), body: [], storedAt: Date(), freshUntil: Date())
        #expect(bare.isNamed(byNotModified: HTTPHeaders([("Last-Modified", monday)])))
    }

    @Test func forcedRevalidationAsksTheUpstreamEvenWhenFresh() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""))
        let source = makeSource()
        _ = try await fetch(source, upstream)
        var forced = policy
        forced.forceRevalidate = true
        #expect(try await fetch(source, upstream, policy: forced).outcome == .revalidated)
        #expect(upstream.requests.count == 2)
        #expect(upstream.requests[1].headers["If-None-Match"] == "\"1\"")
    }

    @Test func upstreamMaxAgeReplacesTheRouteTTL() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""), cacheControl: "max-age=300")
        let source = makeSource()
        _ = try await fetch(source, upstream)
        clock.advance(by: .seconds(200))
        #expect(try await fetch(source, upstream).outcome == .hit)
        clock.advance(by: .seconds(101))
        #expect(try await fetch(source, upstream).outcome == .revalidated)
    }

    @Test("routes sharing an upstream URL judge its entry by their own TTL and page size, not the storing route's")
    func eachRouteJudgesASharedEntryByItsOwnLimits() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""))
        let source = makeSource()
        let long = CachePolicy(ttl: .seconds(3600))
        let short = CachePolicy(ttl: .seconds(1))
        _ = try await fetch(source, upstream, policy: long)
        #expect(try await fetch(source, upstream, policy: short).outcome == .hit)
        clock.advance(by: .seconds(2))
        // Stale for the 1 s route (its Cache-Control must not promise an hour either); fresh for the hour-long one.
        #expect(source.freshHit(request, policy: short) == nil)
        let revalidated = try await fetch(source, upstream, policy: short)
        #expect(revalidated.outcome == .revalidated)
        let hit = try await fetch(source, upstream, policy: long)
        #expect(hit.outcome == .hit)
        // The 304 stored the entry again from now: one second for the short route.
        #expect(try #require(revalidated.stored).freshUntil <= clock.clock.wallNow().addingTimeInterval(1))
        // A route whose pages may be at most 2 bytes asks the upstream (which its own limit then refuses).
        let small = CachePolicy(ttl: .seconds(3600), maxBodyBytes: 2)
        #expect(source.freshHit(request, policy: small) == nil)
        await #expect(throws: UpstreamError.responseTooLarge(origin: "http://api.test", limit: 2)) {
            try await fetch(source, upstream, policy: small)
        }
        #expect(upstream.requests.count == 3)
        // Not a conditional request: a 304 would hand the route the stored body its own limit refuses.
        #expect(upstream.requests.last?.headers["If-None-Match"] == nil)
    }

    @Test("an upstream max-age longer than a route's TTL still counts for that route, after a restart too")
    func anUpstreamLifetimeIsKeptWhateverTheRoute() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""), cacheControl: "max-age=300")
        _ = try await fetch(makeSource(), upstream, policy: CachePolicy(ttl: .seconds(3600)))
        clock.advance(by: .seconds(200))
        // A new store over the same directory: the rule is read back from the entry's file.
        let hit = try await fetch(makeSource(), upstream, policy: CachePolicy(ttl: .seconds(1)))
        #expect(hit.outcome == .hit)
        #expect(try #require(hit.stored).freshUntil > clock.clock.wallNow().addingTimeInterval(99))
    }

    @Test func noStoreIsNeverStoredAndNoCacheIsAlwaysRevalidated() async throws {
        let noStore = Upstream.withETag(Locked("\"1\""), cacheControl: "no-store")
        let source = makeSource()
        #expect(try await fetch(source, noStore).outcome == .miss)
        #expect(try await fetch(source, noStore).outcome == .miss)
        #expect(directory.files.isEmpty)

        let noCache = Upstream.withETag(Locked("\"1\""), cacheControl: "no-cache")
        let other = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=2")!)
        #expect(try await fetch(source, noCache, request: other).outcome == .miss)
        #expect(try await fetch(source, noCache, request: other).outcome == .revalidated)
        #expect(noCache.requests.count == 2)
    }

    @Test func twoAuthorizationValuesNeverShareAnEntry() async throws {
        let upstream = Upstream { request throws(UpstreamError) in
            .json("[\"\(request.headers["Authorization"] ?? "")\"]")
        }
        let source = makeSource()
        var bob = request
        bob.headers.set("Authorization", "Bearer b")
        let forAlice = try await fetch(source, upstream)
        let forBob = try await fetch(source, upstream, request: bob)
        #expect(forBob.outcome == .miss)
        #expect(forAlice.response.body != forBob.response.body)
        #expect(try await fetch(source, upstream, request: bob).response.body == Array("[\"Bearer b\"]".utf8))
        #expect(try await fetch(source, upstream).response.body == Array("[\"Bearer a\"]".utf8))
        #expect(upstream.requests.count == 2)
    }

    @Test func staleIfErrorServesTheOldPageWhenTheUpstreamFails() async throws {
        let failing = Locked<UpstreamError?>(nil)
        let status = Locked(200)
        let upstream = Upstream { _ throws(UpstreamError) in
            if let error = failing.withLock({ $0 }) { throw error }
            let code = status.withLock { $0 }
            return UpstreamResponse(status: HTTPStatus(code: code), headers: HTTPHeaders(), body: Array("[\(code)]".utf8))
        }
        let source = makeSource()
        var allowing = policy
        allowing.staleIfError = true
        _ = try await fetch(source, upstream, policy: allowing)
        clock.advance(by: .seconds(61))
        status.withLock { $0 = 503 }
        let afterStatus = try await fetch(source, upstream, policy: allowing)
        #expect(afterStatus.outcome == .stale)
        #expect(afterStatus.response.body == Array("[200]".utf8))
        failing.withLock { $0 = .connectFailed(origin: "http://api.test", reason: "refused") }
        #expect(try await fetch(source, upstream, policy: allowing).outcome == .stale)
        // Without the route's permission the failure shows.
        await #expect(throws: UpstreamError.self) { try await fetch(source, upstream) }
        failing.withLock { $0 = nil }
        let refused = try await fetch(source, upstream)
        #expect(refused.response.status.code == 503)
        #expect(refused.outcome == .miss)
    }

    /// Stores `[1]` with `cacheControl` through a route that serves stale on errors; the upstream then answers `status`.
    private func storedThenFailing(
        _ cacheControl: String, status: Int
    ) async throws -> (source: CachingPageSource, upstream: Upstream, policy: CachePolicy) {
        let failing = Locked(false)
        let upstream = Upstream { _ throws(UpstreamError) in
            if failing.withLock({ $0 }) { return UpstreamResponse(status: HTTPStatus(code: status), headers: HTTPHeaders(), body: []) }
            return .json("[1]", headers: [("Cache-Control", cacheControl)])
        }
        let source = makeSource()
        let allowing = CachePolicy(ttl: .seconds(60), staleIfError: true)
        _ = try await fetch(source, upstream, policy: allowing)
        failing.withLock { $0 = true }
        return (source, upstream, allowing)
    }

    @Test func mustRevalidateIsNeverServedStale() async throws {
        let (source, upstream, allowing) = try await storedThenFailing("max-age=10, must-revalidate", status: 500)
        clock.advance(by: .seconds(11))
        let result = try await fetch(source, upstream, policy: allowing)
        #expect(result.outcome == .miss)
        #expect(result.response.status.code == 500)
    }

    @Test("an upstream's stale-if-error=N bounds the stale answer to N seconds past the page's freshness (RFC 5861; attack15 U1)")
    func staleIfErrorBoundsTheStaleAnswer() async throws {
        let (source, upstream, allowing) = try await storedThenFailing("max-age=10, stale-if-error=5", status: 503)
        clock.advance(by: .seconds(14))
        #expect(try await fetch(source, upstream, policy: allowing).outcome == .stale)
        clock.advance(by: .seconds(2))
        let late = try await fetch(source, upstream, policy: allowing)
        #expect(late.outcome == .miss)
        #expect(late.response.status.code == 503)
    }

    @Test func noStoreZeroTTLOrADisabledStoreBypass() async throws {
        let upstream = Upstream.withETag(Locked("\"1\""))
        let none = CachingPageSource(store: nil)
        #expect(try await fetch(none, upstream).outcome == .bypass)
        #expect(try await fetch(makeSource(), upstream, policy: CachePolicy(ttl: .zero)).outcome == .bypass)
        let blocker = directory.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let disabled = CachingPageSource(store: DiskStore(directory: blocker + "/cache", maxBytes: 1 << 20))
        #expect(try await fetch(disabled, upstream).outcome == .bypass)
        #expect(try await fetch(disabled, upstream).outcome == .bypass)
        #expect(upstream.requests.count == 4)
    }

    @Test func twentyConcurrentFetchesMakeOneUpstreamRequest() async throws {
        let gate = Gate()
        let upstream = Upstream { _ throws(UpstreamError) in
            await gate.wait()
            return .json("[1,2,3]")
        }
        let source = makeSource()
        let outcomes = try await withThrowingTaskGroup(of: CacheOutcome.self) { group in
            for _ in 0..<20 {
                group.addTask { try await fetch(source, upstream).outcome }
            }
            #expect(await yieldUntil { gate.waiting == 1 && upstream.requests.count == 1 })
            // Let every task reach the collapser before the one request answers.
            for _ in 0..<1000 { await Task.yield() }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(upstream.requests.count == 1)
        #expect(outcomes.count == 20)
        #expect(outcomes.allSatisfy { $0 == .miss || $0 == .hit })
    }

    @Test func aFollowerStillGetsThePageWhenTheLeadersClientLeaves() async throws {
        let gate = Gate()
        let upstream = Upstream { _ throws(UpstreamError) in
            await gate.wait()
            return .json("[1]")
        }
        let source = makeSource()
        let leader = Task { try await fetch(source, upstream) }
        #expect(await yieldUntil { gate.waiting == 1 })
        let follower = Task { try await fetch(source, upstream) }
        for _ in 0..<1000 { await Task.yield() }
        leader.cancel()
        await #expect(throws: UpstreamError.self) { try await leader.value }
        gate.open()
        let followed = try await follower.value
        #expect(followed.response.body == Array("[1]".utf8))
        #expect(upstream.requests.count == 1)
    }

    // MARK: - A request that joins another's fetch keeps its own limits

    /// An upstream whose first request waits at `gate` and then gives `first`; every later request gets `[2]`.
    static func failingFirst(_ gate: Gate, _ first: Result<UpstreamResponse, UpstreamError>) -> Upstream {
        let answered = Locked(0)
        return Upstream { _ throws(UpstreamError) in
            if answered.withLock({ $0 += 1; return $0 }) == 1 {
                await gate.wait()
                return try first.get()
            }
            return .json("[2]")
        }
    }

    /// A transport for one client request over `upstream`: `budget` retries (no waiting between them), until `deadline`.
    static func clientRequest(_ upstream: Upstream, budget: Int, deadline: ContinuousClock.Instant = .now + .seconds(3600)) -> RetryingTransport {
        RetryingTransport(base: upstream, policy: RetryPolicy(budget: budget), deadline: deadline, clock: .noWaits)
    }

    /// Starts a leader's fetch, lets it reach the upstream, then a joiner's; opens the gate; returns both results.
    func leaderThenJoiner(
        _ upstream: Upstream, gate: Gate, leader: any UpstreamTransport, leaderPolicy: CachePolicy? = nil, joiner: any UpstreamTransport,
        joinerPolicy: CachePolicy? = nil, source: CachingPageSource
    ) async throws -> (leader: Result<CachingPageSource.Fetched, UpstreamError>, joiner: Result<CachingPageSource.Fetched, UpstreamError>) {
        let request = self.request
        let policy = self.policy
        let leading = Task { () async -> Result<CachingPageSource.Fetched, UpstreamError> in
            do throws(UpstreamError) {
                return .success(try await source.fetch(request, policy: leaderPolicy ?? policy, transport: leader, timeout: Self.pageTimeout, maxBodyBytes: 1 << 20))
            } catch {
                return .failure(error)
            }
        }
        #expect(await yieldUntil { gate.waiting == 1 })
        let joining = Task { () async -> Result<CachingPageSource.Fetched, UpstreamError> in
            do throws(UpstreamError) {
                return .success(try await source.fetch(request, policy: joinerPolicy ?? policy, transport: joiner, timeout: Self.pageTimeout, maxBodyBytes: 1 << 20))
            } catch {
                return .failure(error)
            }
        }
        // Let the joiner reach the collapser (or give up) before the leader's request answers.
        for _ in 0..<1000 { await Task.yield() }
        gate.open()
        return (await leading.value, await joining.value)
    }

    @Test("a joiner whose shared fetch ran out of the leader's budget, or its time, fetches again with its own",
        arguments: [Result<UpstreamResponse, UpstreamError>.success(UpstreamResponse(status: HTTPStatus(code: 503), headers: HTTPHeaders(), body: [])),
            .failure(.timedOut(origin: "http://api.test"))])
    func aJoinerKeepsItsOwnRetryBudget(first: Result<UpstreamResponse, UpstreamError>) async throws {
        let gate = Gate()
        let upstream = Self.failingFirst(gate, first)
        let (leader, joiner) = try await leaderThenJoiner(
            upstream, gate: gate, leader: Self.clientRequest(upstream, budget: 0), joiner: Self.clientRequest(upstream, budget: 2),
            source: makeSource())
        #expect((try? leader.get().response.status.code) ?? 504 != 200, "the leader's own budget was spent")
        let joined = try joiner.get()
        #expect(joined.response.body == Array("[2]".utf8))
        #expect(joined.outcome == .miss)
        #expect(upstream.requests.count == 2)
    }

    @Test("a joiner stops waiting at its own deadline, while the leader's fetch goes on")
    func aJoinerKeepsItsOwnDeadline() async throws {
        let gate = Gate()
        let upstream = Self.failingFirst(gate, .success(.json("[1]")))
        let (leader, joiner) = try await leaderThenJoiner(
            upstream, gate: gate, leader: Self.clientRequest(upstream, budget: 0),
            joiner: Self.clientRequest(upstream, budget: 0, deadline: .now - .seconds(1)), source: makeSource())
        #expect(try leader.get().response.body == Array("[1]".utf8))
        #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try joiner.get() }
        #expect(upstream.requests.count == 1)
    }

    @Test("a stale page the leader may take is not handed to a joiner whose route does not allow it")
    func aJoinerIsNotServedStaleAgainstItsPolicy() async throws {
        let source = makeSource()
        _ = try await fetch(source, Upstream { _ throws(UpstreamError) in .json("[1]") })
        clock.advance(by: .seconds(61))
        let gate = Gate()
        let upstream = Self.failingFirst(gate, .failure(.connectFailed(origin: "http://api.test", reason: "refused")))
        // The joiner's route retries once: the failed try it joined was its first.
        let (leader, joiner) = try await leaderThenJoiner(
            upstream, gate: gate, leader: upstream, leaderPolicy: CachePolicy(ttl: .seconds(60), staleIfError: true),
            joiner: Self.clientRequest(upstream, budget: 1), source: source)
        #expect(try leader.get().outcome == .stale)
        #expect(try joiner.get().response.body == Array("[2]".utf8))
        #expect(upstream.requests.count == 2)
    }
}
