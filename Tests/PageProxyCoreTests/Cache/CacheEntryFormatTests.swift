import Foundation
import Testing

@testable import PageProxyCore

/// Entry files: a round trip keeps everything; any truncation, bit flip or wrong name is refused.
@Suite struct CacheEntryFormatTests {
    static let key = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=2")!))

    static let entry = CacheEntry(
        status: .ok,
        headers: HTTPHeaders([("Content-Type", "application/json"), ("ETag", "\"v1\""), ("Link", "<http://api.test/items?page=3>; rel=\"next\"")]),
        body: Array("[{\"id\":1},{\"id\":2}]".utf8), storedAt: Date(timeIntervalSince1970: 1_700_000_000.5),
        freshUntil: Date(timeIntervalSince1970: 1_700_000_060.25), mustRevalidate: true)

    @Test func roundTripKeepsEveryField() throws {
        let bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        #expect(Array(bytes.prefix(4)) == Array("PPCE".utf8))
        #expect(try CacheEntryFormat.decode(bytes, key: Self.key) == Self.entry)
    }

    @Test func emptyBodyAndNoHeadersRoundTrip() throws {
        let entry = CacheEntry(status: .ok, headers: HTTPHeaders(), body: [], storedAt: Date(timeIntervalSince1970: 0), freshUntil: Date(timeIntervalSince1970: 0))
        #expect(try CacheEntryFormat.decode(CacheEntryFormat.encode(entry, key: Self.key), key: Self.key) == entry)
    }

    @Test func everyTruncationIsRefused() {
        let bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        for length in 0..<bytes.count {
            #expect(throws: CacheEntryFormat.Invalid.self) { try CacheEntryFormat.decode(Array(bytes.prefix(length)), key: Self.key) }
        }
    }

    @Test func extraTrailingBytesAreRefused() {
        let bytes = CacheEntryFormat.encode(Self.entry, key: Self.key) + [0]
        #expect(throws: CacheEntryFormat.Invalid.lengthMismatch) { try CacheEntryFormat.decode(bytes, key: Self.key) }
    }

    @Test func everyFlippedByteIsRefused() {
        let bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        for index in bytes.indices {
            var corrupted = bytes
            corrupted[index] ^= 0x01
            #expect(throws: CacheEntryFormat.Invalid.self) { try CacheEntryFormat.decode(corrupted, key: Self.key) }
        }
    }

    @Test func anEntryUnderAnotherKeysNameIsRefused() {
        let other = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=3")!))
        let bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        #expect(throws: CacheEntryFormat.Invalid.wrongKey) { try CacheEntryFormat.decode(bytes, key: other) }
    }

    @Test func storedHeadersDropHopByHopFramingAndCookies() {
        let stored = CacheEntry.storedHeaders(
            of: HTTPHeaders([
                ("Content-Length", "10"), ("Connection", "keep-alive"), ("Transfer-Encoding", "chunked"), ("Set-Cookie", "s=1"),
                ("Date", "x"), ("ETag", "\"e\""), ("X-Next-Page", "3"),
            ]))
        #expect(stored == HTTPHeaders([("ETag", "\"e\""), ("X-Next-Page", "3")]))
    }

    @Test func a304MergesNewValidatorsAndKeepsTheRest() {
        var entry = Self.entry
        entry.merge304Headers(HTTPHeaders([("ETag", "\"v2\""), ("Cache-Control", "max-age=5"), ("Content-Length", "0")]))
        #expect(entry.headers["ETag"] == "\"v2\"")
        #expect(entry.headers["Cache-Control"] == "max-age=5")
        #expect(entry.headers["Link"] == Self.entry.headers["Link"])
        #expect(entry.headers["Content-Length"] == nil)
        #expect(entry.headers.values("ETag").count == 1)
    }
}
