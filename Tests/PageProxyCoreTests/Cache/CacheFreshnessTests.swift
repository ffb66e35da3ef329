import Foundation
import Testing

@testable import PageProxyCore

/// Freshness from the route's TTL and the upstream's Cache-Control, one directive at a time.
@Suite struct CacheFreshnessTests {
    /// When the responses of these tests are received.
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private static func freshness(
        _ cacheControl: String?, age: String? = nil, ttl: Duration = .seconds(60), _ more: [(String, String)] = []
    ) -> CacheFreshness {
        var headers = HTTPHeaders()
        if let cacheControl { headers.add("Cache-Control", cacheControl) }
        if let age { headers.add("Age", age) }
        for (name, value) in more { headers.add(name, value) }
        return CacheFreshness(headers: headers, routeTTL: ttl, now: now)
    }

    /// The HTTP date `seconds` from `now`.
    private static func date(_ seconds: Double) -> String { HTTPDate.format(now.addingTimeInterval(seconds)) }

    @Test func noDirectiveUsesTheRouteTTL() {
        #expect(Self.freshness(nil) == CacheFreshness(isStorable: true, lifetime: .seconds(60), mustRevalidate: false))
    }

    @Test func noStoreIsNeverStored() {
        #expect(!Self.freshness("no-store").isStorable)
        #expect(!Self.freshness("private, NO-STORE").isStorable)
        let response = UpstreamResponse(status: .ok, headers: HTTPHeaders([("Cache-Control", "no-store")]), body: [])
        #expect(CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Self.now) == nil)
    }

    @Test func privateIsStoredWithTheRouteTTL() {
        #expect(Self.freshness("private") == CacheFreshness(isStorable: true, lifetime: .seconds(60), mustRevalidate: false, isPrivate: true))
    }

    @Test("private, qualified or not, in any case, is remembered by the entry made from the page, across a 304 and its file")
    func privateIsRememberedByTheEntry() throws {
        for value in ["private", "PRIVATE, max-age=60", #"max-age=60, private="Set-Cookie, X-Token""#, "private=Set-Cookie"] {
            #expect(Self.freshness(value).isPrivate, "\(value)")
            #expect(CacheFreshness.isPrivate(HTTPHeaders([("Cache-Control", value)])), "\(value)")
        }
        for value in ["public, max-age=60", "no-cache", "x-private"] {
            #expect(!Self.freshness(value).isPrivate, "\(value)")
            #expect(!CacheFreshness.isPrivate(HTTPHeaders([("Cache-Control", value)])), "\(value)")
        }
        let response = UpstreamResponse(status: .ok, headers: HTTPHeaders([("Cache-Control", "private, max-age=60")]), body: Array("[]".utf8))
        var entry = try #require(CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Self.now))
        #expect(entry.isPrivate)
        let key = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items")!))
        #expect(try CacheEntryFormat.decode(CacheEntryFormat.encode(entry, key: key), key: key).isPrivate)
        entry.merge304Headers(HTTPHeaders([("Cache-Control", "max-age=60")]))
        #expect(!entry.isPrivate)
        entry.merge304Headers(HTTPHeaders([("Cache-Control", "private")]))
        #expect(entry.isPrivate)
    }

    @Test func maxAgeReplacesTheRouteTTLEitherWay() {
        #expect(Self.freshness("max-age=5").lifetime == .seconds(5))
        #expect(Self.freshness("public, max-age=3600").lifetime == .seconds(3600))
        #expect(Self.freshness("max-age=\"7\"").lifetime == .seconds(7))
        #expect(Self.freshness("max-age=0").lifetime == .zero)
    }

    @Test func ageIsSubtractedFromMaxAge() {
        #expect(Self.freshness("max-age=60", age: "45").lifetime == .seconds(15))
        #expect(Self.freshness("max-age=60", age: "90").lifetime == .zero)
        // The upstream's lifetime is marked as such: a route with a shorter TTL keeps it (the route's TTL is not).
        #expect(Self.freshness("max-age=60").lifetimeFromUpstream)
        #expect(!Self.freshness(nil).lifetimeFromUpstream && Self.freshness("max-age=abc").lifetimeFromUpstream)
    }

    @Test func noCacheIsStoredButAlwaysRevalidated() {
        #expect(Self.freshness("no-cache") == CacheFreshness(isStorable: true, lifetime: .zero, mustRevalidate: true, lifetimeFromUpstream: true))
    }

    @Test func mustRevalidateForbidsServingStale() {
        let freshness = Self.freshness("max-age=30, must-revalidate")
        #expect(freshness.lifetime == .seconds(30))
        #expect(freshness.mustRevalidate)
    }

    /// attack6 F5 — RFC 9111 §4.2.1: invalid freshness information is stale (it was the route's TTL).
    @Test func invalidOrHugeMaxAgeIsHandled() {
        for value in ["max-age=abc", "max-age=-5", "max-age=-1", "max-age=", "max-age=1.5"] {
            #expect(Self.freshness(value) == CacheFreshness(isStorable: true, lifetime: .zero, mustRevalidate: false, lifetimeFromUpstream: true), "\(value)")
        }
        #expect(Self.freshness("max-age=99999999999999999999").lifetime == .seconds(2_147_483_648))
    }

    /// attack6 F10: `max-age=00000000060` was taken as too long to read (2^31 s: 68 years), `Age: 00000000000` as huge.
    @Test func leadingZerosAreDigits() {
        #expect(Self.freshness("max-age=00000000060").lifetime == .seconds(60))
        #expect(Self.freshness("max-age=60", age: "00000000000").lifetime == .seconds(60))
        #expect(Self.freshness("max-age=000000000000000000000000").lifetime == .zero)
        #expect(CacheFreshness.seconds("00099999999999") == 2_147_483_648)
        #expect(CacheFreshness.seconds("0") == 0)
        #expect(CacheFreshness.seconds("0x10") == nil)
    }

    /// attack6 F5 — RFC 9111 §5.3: `Expires` is for every cache; a past or invalid one is stale at once.
    @Test func expiresSetsTheLifetimeWithoutMaxAge() {
        let stale = CacheFreshness(isStorable: true, lifetime: .zero, mustRevalidate: false, lifetimeFromUpstream: true)
        for expires in ["0", "-1", "yesterday", Self.date(-3600), "Thu, 01 Jan 1970 00:00:00 GMT", Self.date(0)] {
            #expect(Self.freshness(nil, [("Expires", expires)]) == stale, "\(expires)")
        }
        // In the future: its lifetime, shorter or longer than the route's TTL (a default for pages that say nothing).
        #expect(Self.freshness(nil, [("Expires", Self.date(30))]) == CacheFreshness(isStorable: true, lifetime: .seconds(30), mustRevalidate: false, lifetimeFromUpstream: true))
        #expect(Self.freshness(nil, [("Expires", Self.date(7200))]).lifetime == .seconds(7200))
        // Expires − Date, on the upstream's clock: one 10 minutes slow gives the same lifetime, less its apparent age.
        #expect(Self.freshness(nil, [("Date", Self.date(-600)), ("Expires", Self.date(-570))]).lifetime == .zero)
        #expect(Self.freshness(nil, [("Date", Self.date(0)), ("Expires", Self.date(45))]).lifetime == .seconds(45))
        #expect(Self.freshness(nil, [("Date", Self.date(90)), ("Expires", Self.date(135))]).lifetime == .seconds(45))
        // max-age wins over Expires, either way; no-cache and no-store still rule.
        #expect(Self.freshness("max-age=20", [("Expires", "0")]).lifetime == .seconds(20))
        #expect(Self.freshness("max-age=20", [("Expires", Self.date(3600))]).lifetime == .seconds(20))
        #expect(Self.freshness("no-cache", [("Expires", Self.date(3600))]).lifetime == .zero)
        #expect(!Self.freshness("no-store", [("Expires", Self.date(3600))]).isStorable)
        // An entry made from a page that expired already is stale as stored.
        let response = UpstreamResponse(status: .ok, headers: HTTPHeaders([("Expires", "0")]), body: Array("[]".utf8))
        let entry = CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Self.now)
        #expect(entry?.freshUntil == Self.now)
        #expect(entry?.isFresh(at: Self.now) == false)
    }

    /// attack6 F5 — RFC 9111 §4.2.3: the apparent age (now − Date) counts with Age, the larger of the two.
    @Test func theApparentAgeFromDateCounts() {
        #expect(Self.freshness("max-age=60", [("Date", Self.date(-20))]).lifetime == .seconds(40))
        #expect(Self.freshness("max-age=60", age: "30", [("Date", Self.date(-20))]).lifetime == .seconds(30))
        #expect(Self.freshness("max-age=60", age: "5", [("Date", Self.date(-20))]).lifetime == .seconds(40))
        // A Date 32 years old: stale at once.
        #expect(Self.freshness("max-age=60", [("Date", "Mon, 01 Jan 1996 00:00:00 GMT")]).lifetime == .zero)
        // A Date ahead of this clock is no age (an upstream clock that runs fast), nor is one that is not a date.
        #expect(Self.freshness("max-age=60", [("Date", Self.date(300))]).lifetime == .seconds(60))
        #expect(Self.freshness("max-age=60", [("Date", "soon")]).lifetime == .seconds(60))
        // The route's TTL is counted from when PageProxy received the page.
        #expect(Self.freshness(nil, [("Date", Self.date(-20))]).lifetime == .seconds(60))
    }

    /// review15 R4 — the page's age as it arrived is kept for a client's `max-age`, whatever set its lifetime.
    @Test func thePagesAgeOnArrivalIsKept() {
        #expect(Self.freshness("max-age=7200", age: "3600").initialAge == .seconds(3600))
        #expect(Self.freshness(nil, age: "30", [("Date", Self.date(-20))]).initialAge == .seconds(30))
        #expect(Self.freshness(nil, age: "5", [("Date", Self.date(-20))]).initialAge == .seconds(20))
        #expect(Self.freshness("no-cache", [("Date", Self.date(300))]).initialAge == .zero)
        #expect(Self.freshness(nil).initialAge == .zero)
        let entry = CacheFreshness.entry(
            for: UpstreamResponse(status: .ok, headers: HTTPHeaders([("Age", "600")]), body: []), routeTTL: .seconds(60), now: Self.now)
        #expect(entry?.initialAge == .seconds(600))
        #expect(entry?.age(at: Self.now.addingTimeInterval(10)) == 610)
    }

    /// review9 G3 — a page its `Date` alone makes stale (an upstream clock behind by more than the lifetime) says so;
    /// one its `Age` makes stale, or one with time left, or one with no lifetime of the upstream's, does not.
    @Test func aPageStaleByItsDateAloneSaysSo() {
        let behind = Self.freshness("max-age=60", [("Date", Self.date(-120))])
        #expect(behind.lifetime == .zero && behind.isStaleByDateAlone)
        // How far behind, from the one parse of `Date` (review10: the proxy parsed it again to say so).
        #expect(behind.staleByDateBehind == .seconds(120))
        #expect(Self.freshness("max-age=60", [("Date", Self.date(-20))]).staleByDateBehind == nil)
        #expect(Self.freshness(nil, [("Expires", Self.date(-60)), ("Date", Self.date(-120))]).isStaleByDateAlone)
        #expect(!Self.freshness("max-age=60", age: "120", [("Date", Self.date(-120))]).isStaleByDateAlone)
        #expect(!Self.freshness("max-age=60", [("Date", Self.date(-20))]).isStaleByDateAlone)
        #expect(!Self.freshness("max-age=0", [("Date", Self.date(-20))]).isStaleByDateAlone)
        #expect(!Self.freshness(nil, [("Date", Self.date(-120))]).isStaleByDateAlone)
        #expect(!Self.freshness("max-age=60").isStaleByDateAlone)
    }

    /// attack6 F5 — RFC 9111 §4.1: a stored response with `Vary: *` matches no request: revalidated before every use.
    @Test func varyStarIsStoredAsNoCache() {
        let noCache = CacheFreshness(isStorable: true, lifetime: .zero, mustRevalidate: true, lifetimeFromUpstream: true)
        #expect(Self.freshness("max-age=600", [("Vary", "*")]) == noCache)
        #expect(Self.freshness(nil, [("Vary", "Accept, *")]) == noCache)
        #expect(Self.freshness(nil, [("Vary", "Accept")]).lifetime == .seconds(60))
    }

    @Test func sMaxAgeIsForSharedCachesOnly() {
        #expect(Self.freshness("s-maxage=5").lifetime == .seconds(60))
    }

    @Test func onlyA200IsStored() {
        let response = UpstreamResponse(status: HTTPStatus(code: 203), headers: HTTPHeaders(), body: [])
        #expect(CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Self.now) == nil)
    }
}
