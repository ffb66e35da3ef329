import Foundation
import Testing

@testable import PageProxyCore

/// Freshness from the route's TTL and the upstream's Cache-Control, one directive at a time.
@Suite struct CacheFreshnessTests {
    private static func freshness(_ cacheControl: String?, age: String? = nil, ttl: Duration = .seconds(60)) -> CacheFreshness {
        var headers = HTTPHeaders()
        if let cacheControl { headers.add("Cache-Control", cacheControl) }
        if let age { headers.add("Age", age) }
        return CacheFreshness(headers: headers, routeTTL: ttl)
    }

    @Test func noDirectiveUsesTheRouteTTL() {
        #expect(Self.freshness(nil) == CacheFreshness(isStorable: true, lifetime: .seconds(60), mustRevalidate: false))
    }

    @Test func noStoreIsNeverStored() {
        #expect(!Self.freshness("no-store").isStorable)
        #expect(!Self.freshness("private, NO-STORE").isStorable)
        let response = UpstreamResponse(status: .ok, headers: HTTPHeaders([("Cache-Control", "no-store")]), body: [])
        #expect(CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Date()) == nil)
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
        var entry = try #require(CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Date()))
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
        #expect(!Self.freshness(nil).lifetimeFromUpstream && !Self.freshness("max-age=abc").lifetimeFromUpstream)
    }

    @Test func noCacheIsStoredButAlwaysRevalidated() {
        #expect(Self.freshness("no-cache") == CacheFreshness(isStorable: true, lifetime: .zero, mustRevalidate: true, lifetimeFromUpstream: true))
    }

    @Test func mustRevalidateForbidsServingStale() {
        let freshness = Self.freshness("max-age=30, must-revalidate")
        #expect(freshness.lifetime == .seconds(30))
        #expect(freshness.mustRevalidate)
    }

    @Test func invalidOrHugeMaxAgeIsHandled() {
        #expect(Self.freshness("max-age=abc").lifetime == .seconds(60))
        #expect(Self.freshness("max-age=-5").lifetime == .seconds(60))
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

    @Test func sMaxAgeIsForSharedCachesOnly() {
        #expect(Self.freshness("s-maxage=5").lifetime == .seconds(60))
    }

    @Test func onlyA200IsStored() {
        let response = UpstreamResponse(status: HTTPStatus(code: 203), headers: HTTPHeaders(), body: [])
        #expect(CacheFreshness.entry(for: response, routeTTL: .seconds(60), now: Date()) == nil)
    }
}
