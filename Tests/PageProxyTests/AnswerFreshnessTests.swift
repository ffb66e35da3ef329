import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// What a merged answer tells caches in front of PageProxy: `Cache-Control`, `Vary`, `Age` (issue 17).
@Suite struct AnswerFreshnessTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func page(_ cacheControl: String?) -> UpstreamResponse {
        var headers = HTTPHeaders()
        if let cacheControl { headers.set("Cache-Control", cacheControl) }
        return UpstreamResponse(status: .ok, headers: headers, body: [])
    }

    @Test func maxAgeIsTheLeastRemainingFreshnessOfThePages() {
        var freshness = AnswerFreshness()
        freshness.record(response: Self.page(nil), outcome: .hit, freshUntil: Self.now + 50, routeTTL: .seconds(60), now: Self.now)
        freshness.record(response: Self.page(nil), outcome: .miss, freshUntil: Self.now + 12.9, routeTTL: .seconds(60), now: Self.now)
        // Not stored (the route bypasses the cache): the upstream's max-age counts from now.
        freshness.record(response: Self.page("max-age=30"), outcome: .bypass, freshUntil: nil, routeTTL: .zero, now: Self.now)
        #expect(freshness.cacheControl(at: Self.now, isPrivate: false) == "max-age=12")
        #expect(freshness.cacheControl(at: Self.now, isPrivate: true) == "private, max-age=12")
        // Later, the same answer has less left, and none once its first page is stale.
        #expect(freshness.cacheControl(at: Self.now + 10, isPrivate: false) == "max-age=2")
        #expect(freshness.cacheControl(at: Self.now + 13, isPrivate: false) == "max-age=0, no-cache")
    }

    @Test func aPageThatMustBeRevalidatedMakesTheAnswerNoCache() {
        var stale = AnswerFreshness()
        stale.record(response: Self.page(nil), outcome: .hit, freshUntil: Self.now + 50, routeTTL: .seconds(60), now: Self.now)
        stale.record(response: Self.page(nil), outcome: .stale, freshUntil: nil, routeTTL: .seconds(60), now: Self.now)
        #expect(stale.cacheControl(at: Self.now, isPrivate: false) == "max-age=0, no-cache")
        var noCache = AnswerFreshness()
        noCache.record(response: Self.page("no-cache"), outcome: .bypass, freshUntil: nil, routeTTL: .seconds(60), now: Self.now)
        #expect(noCache.cacheControl(at: Self.now, isPrivate: true) == "private, max-age=0, no-cache")
    }

    @Test func aNoStorePageMakesTheAnswerNoStore() {
        var freshness = AnswerFreshness()
        freshness.record(response: Self.page(nil), outcome: .hit, freshUntil: Self.now + 50, routeTTL: .seconds(60), now: Self.now)
        freshness.record(response: Self.page("private, no-store"), outcome: .miss, freshUntil: nil, routeTTL: .seconds(60), now: Self.now)
        #expect(freshness.cacheControl(at: Self.now, isPrivate: true) == "no-store")
    }

    @Test("a page its upstream marked private makes the answer private: read from its headers, or from its stored version")
    func anUpstreamPrivatePageMakesTheAnswerPrivate() {
        var fetched = AnswerFreshness()
        fetched.record(response: Self.page(nil), outcome: .hit, freshUntil: Self.now + 50, routeTTL: .seconds(60), now: Self.now)
        #expect(fetched.cacheControl(at: Self.now, isPrivate: false) == "max-age=50")
        fetched.record(response: Self.page("private, max-age=30"), outcome: .bypass, freshUntil: nil, routeTTL: .zero, now: Self.now)
        #expect(fetched.cacheControl(at: Self.now, isPrivate: false) == "private, max-age=30")
        // A stored page's headers are not read again: its stored version says it.
        let key = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items")!))
        let stored = CachingPageSource.StoredVersion(
            stamp: PageStamp(key: key, generation: 1), freshUntil: Self.now + 40, storedAt: Self.now, lifetimeFromUpstream: true, isPrivate: true)
        let tally = CacheTally(clock: .wall { Self.now })
        tally.record(.hit, stored: stored, response: Self.page(nil), routeTTL: .seconds(60))
        #expect(tally.freshness.cacheControl(at: Self.now, isPrivate: false) == "private, max-age=40")
        #expect(tally.freshness.upstreamPrivate)
    }

    @Test("a request's tally keeps its answer's freshness: each page's, recorded with its cache outcome, on its clock")
    func theTallyKeepsTheAnswersFreshness() {
        let tally = CacheTally(clock: .wall { Self.now })
        tally.record(.bypass, response: Self.page("max-age=30"), routeTTL: .zero)
        tally.record(.bypass, response: Self.page("max-age=20"), routeTTL: .zero)
        #expect(tally.freshness.cacheControl(at: Self.now, isPrivate: false) == "max-age=20")
        #expect(tally.summary == "hits=0 misses=0 revalidated=0 stale=0 bypassed=2")
        // A page recorded without its response counts only its outcome.
        tally.record(.bypass)
        #expect(tally.freshness.cacheControl(at: Self.now, isPrivate: false) == "max-age=20")
        tally.record(.bypass, response: Self.page("no-store"), routeTTL: .zero)
        #expect(tally.freshness.cacheControl(at: Self.now, isPrivate: false) == "no-store")
    }

    // MARK: End to end

    static let target = "/github?mock_total=50"

    @Test func aMergedAnswerAndIts304SayHowLongTheyStayFresh() async throws {
        try await CacheTests.run(route: { $0.ttl = .seconds(60) }) { stack, _ in
            let cold = try await stack.get(Self.target)
            let maxAge = try #require(cold.header("Cache-Control").flatMap(Self.maxAge))
            // Every page was stored just now for the route's 60 s.
            #expect((1...60).contains(maxAge))
            #expect(cold.header("Age") == "0")
            #expect(
                cold.header("Vary")
                    == "Accept, PageProxy-Format, PageProxy-Max-Pages, PageProxy-Max-Items, PageProxy-Offset, PageProxy-Limit, PageProxy-Fields")
            // From the memo: still what is left of the same pages' freshness, never more.
            let warm = try await stack.get(Self.target)
            #expect(warm.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(try #require(warm.header("Cache-Control").flatMap(Self.maxAge)) <= maxAge)
            // RFC 9110 §15.4.5 — a 304 carries the fields the 200 would have.
            let etag = try #require(cold.header("ETag"))
            let notModified = try await stack.get(Self.target, headers: ["If-None-Match": etag])
            #expect(notModified.status == 304)
            #expect(notModified.header("Cache-Control").flatMap(Self.maxAge) != nil)
            #expect(notModified.header("Vary") == cold.header("Vary"))
        }
    }

    /// attack6 F2: with `PageProxy-Limit` missing from `Vary`, nginx in front gave one client's 2-item window to
    /// every later plain request. Every header control that changes the body must be named, on both answers.
    @Test func everyHeaderThatChangesTheBodyIsInVary() async throws {
        try await CacheTests.run { stack, _ in
            let plain = try await stack.get(Self.target)
            let controls = [
                "PageProxy-Limit": "2", "PageProxy-Offset": "45", "PageProxy-Fields": "id", "PageProxy-Max-Items": "3",
                "PageProxy-Max-Pages": "1", "PageProxy-Format": "ndjson",
            ]
            for (name, value) in controls {
                let selected = try await stack.get(Self.target, headers: [name: value])
                #expect(selected.status == 200)
                #expect(selected.body != plain.body, "\(name) changes the body")
                // An NDJSON answer is `no-store`: no cache keeps it, so it needs no `Vary`.
                for answer in [plain, selected] where answer.header("Cache-Control") != "no-store" {
                    let varied = (answer.header("Vary") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    #expect(varied.contains(name), "Vary names \(name)")
                }
            }
        }
    }

    @Test func stalePagesMakeTheAnswerRevalidateEveryTime() async throws {
        // A TTL of a nanosecond: every page is stale by the time the answer is made.
        try await CacheTests.run(route: { $0.ttl = .nanoseconds(1) }) { stack, _ in
            let response = try await stack.get(Self.target)
            #expect(response.header("Cache-Control") == "max-age=0, no-cache")
        }
    }

    @Test func forwardedCredentialsMakeTheAnswerPrivateAndVaryOnThem() async throws {
        try await CacheTests.run(route: { $0.forwardHeaders = ["Authorization"] }) { stack, _ in
            let mine = try await stack.get(Self.target, headers: ["Authorization": "Bearer mine"])
            #expect(mine.header("Cache-Control")?.hasPrefix("private, max-age=") == true)
            #expect(mine.header("Vary")?.hasSuffix(", Authorization") == true)
            // Without credentials the answer is the same for everyone: shareable, but still varying on them.
            let anyone = try await stack.get(Self.target)
            #expect(anyone.header("Cache-Control")?.hasPrefix("max-age=") == true)
            #expect(anyone.header("Vary")?.hasSuffix(", Authorization") == true)
        }
    }

    @Test func ndjsonAnswersAreNotStored() async throws {
        try await CacheTests.run { stack, _ in
            let response = try await stack.get(Self.target + "&_format=ndjson")
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            #expect(response.header("Age") == nil)
        }
    }

    /// The N of `max-age=N` in a `Cache-Control` value without `private` or `no-cache`.
    static func maxAge(_ value: String) -> Int? {
        guard value.hasPrefix("max-age="), !value.contains(",") else { return nil }
        return Int(value.dropFirst("max-age=".count))
    }
}

extension Date {
    fileprivate static func + (date: Date, seconds: Double) -> Date { date.addingTimeInterval(seconds) }
}
