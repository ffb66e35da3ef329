import Foundation
import Testing

@testable import PageProxyCore

/// Entry files: a round trip keeps everything; any truncation, bit flip or wrong name is refused.
@Suite struct CacheEntryFormatTests {
    static let key = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=2")!))

    /// What a walk of this page scans for: items under `data`, and values of every kind.
    static let paths = ScanPaths(
        itemsPath: JSONPath("data")!, valuePaths: ["next", "total", "more", "done", "none", "meta", "data", "missing"].map { JSONPath($0)! })

    static let body = Array(#"{"data":[{"id":1}, {"id":2}],"next":"a\u00e9","total":12,"more":true,"done":false,"none":null,"meta":{"x":1}}"#.utf8)

    static let entry = CacheEntry(
        status: .ok,
        headers: HTTPHeaders([("Content-Type", "application/json"), ("ETag", "\"v1\""), ("Link", "<http://api.test/items?page=3>; rel=\"next\"")]),
        body: body, storedAt: Date(timeIntervalSince1970: 1_700_000_000.5),
        freshUntil: Date(timeIntervalSince1970: 1_700_000_060.25), mustRevalidate: true, lifetimeFromUpstream: true,
        scan: StoredScan(try! paths.scan(body), for: paths))

    @Test func roundTripKeepsEveryField() throws {
        let bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        #expect(Array(bytes.prefix(4)) == Array("PPCE".utf8))
        let decoded = try CacheEntryFormat.decode(bytes, key: Self.key)
        #expect(decoded == Self.entry)
        #expect(decoded.bodyChecksum == XXHash64.hash(Self.body))
    }

    /// review15 R4: the page's age when stored survives its file; an entry written without one (no age, or by the
    /// version before) reads as age 0.
    @Test func thePagesAgeWhenStoredRoundTrips() throws {
        var aged = Self.entry
        aged.initialAge = .seconds(3600)
        let decoded = try CacheEntryFormat.decode(CacheEntryFormat.encode(aged, key: Self.key), key: Self.key)
        #expect(decoded.initialAge == .seconds(3600))
        #expect(decoded.headers == Self.entry.headers)
        #expect(try CacheEntryFormat.decode(CacheEntryFormat.encode(Self.entry, key: Self.key), key: Self.key).initialAge == .zero)
    }

    /// review21 L2: the age is a stored field, which every decoder of format 2 reads as one more header: the file is
    /// byte for byte an entry with that header and no age, so an older process sharing the directory reads it, not
    /// deletes it as corrupt (as it did the tag-1 section after the scan).
    @Test func thePagesAgeIsAFieldOlderBinariesRead() throws {
        var aged = Self.entry
        aged.initialAge = .seconds(3600)
        var asOlderBinariesSeeIt = Self.entry
        asOlderBinariesSeeIt.headers.add(CacheEntryFormat.initialAgeField, "3600")
        #expect(CacheEntryFormat.encode(aged, key: Self.key) == CacheEntryFormat.encode(asOlderBinariesSeeIt, key: Self.key))
        // An upstream's own field of that name is not stored; one an older binary kept anyway is no age of a number.
        #expect(CacheEntry.storedHeaders(of: HTTPHeaders([("PageProxy-Initial-Age", "9"), ("ETag", "\"1\"")])) == HTTPHeaders([("ETag", "\"1\"")]))
        var odd = Self.entry
        odd.headers.add(CacheEntryFormat.initialAgeField, "soon")
        #expect(try CacheEntryFormat.decode(CacheEntryFormat.encode(odd, key: Self.key), key: Self.key) == Self.entry)
    }

    /// An entry of the binary of 4e95722, with the age in a tag-1 section after the scan, still reads with its age.
    @Test func anAgeSectionAfterTheScanStillReads() throws {
        var bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        let headerLength = (8..<12).reduce(0) { $0 << 8 | Int(bytes[$1]) }
        let headerEnd = CacheEntryFormat.prefixLength + headerLength
        bytes.insert(contentsOf: [1, 0, 0, 0x0E, 0x10], at: headerEnd)
        var writer = ByteWriter()
        writer.bytes = bytes
        writer.set(UInt32(headerLength + 5), at: 8)
        writer.set(XXHash64.hash(writer.bytes[CacheEntryFormat.prefixLength..<(headerEnd + 5)]), at: 20)
        let decoded = try CacheEntryFormat.decode(writer.bytes, key: Self.key)
        #expect(decoded.initialAge == .seconds(3600))
        #expect(decoded.headers == Self.entry.headers)
    }

    @Test("the stored scan gives the walk the same items and values as scanning again, and only for the same paths")
    func theStoredScanIsTheScan() throws {
        let decoded = try CacheEntryFormat.decode(CacheEntryFormat.encode(Self.entry, key: Self.key), key: Self.key)
        let page = try #require(decoded.scan?.page(for: Self.paths))
        #expect(page == (try Self.paths.scan(Self.body)))
        #expect(page.items.count == 2)
        #expect(page.values.count == 7)
        #expect(decoded.scan?.page(for: ScanPaths(itemsPath: JSONPath("data")!, valuePaths: [])) == nil)
        #expect(decoded.scan?.page(for: ScanPaths(itemsPath: .root, valuePaths: Self.paths.valuePaths)) == nil)
    }

    @Test("a file of the first format (SHA-256, no scan) is an unsupported version: a miss")
    func aVersion1FileIsRefused() {
        var bytes = CacheEntryFormat.encode(Self.entry, key: Self.key)
        bytes[4..<8] = [0, 0, 0, 1]
        #expect(throws: CacheEntryFormat.Invalid.unsupportedVersion(1)) { try CacheEntryFormat.decode(bytes, key: Self.key) }
    }

    @Test("a scan that points outside its body is refused, checksums or not")
    func aScanOutsideItsBodyIsRefused() {
        var entry = Self.entry
        entry.scan = StoredScan(signature: Self.paths.signature, items: [JSONItem(range: 0..<(Self.body.count + 1), isCompact: true)], values: [:])
        #expect(throws: CacheEntryFormat.Invalid.badHeader) {
            try CacheEntryFormat.decode(CacheEntryFormat.encode(entry, key: Self.key), key: Self.key)
        }
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
