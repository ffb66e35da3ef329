import Foundation
import Testing

@testable import PageProxyCore

/// A page is scanned once, when the cache stores it: hits carry the stored scan and checksum, and the walker uses
/// the scan instead of scanning again (issue 13).
@Suite struct StoredScanTests {
    let directory = TemporaryDirectory()
    let paths = ScanPaths(itemsPath: .root, valuePaths: [])

    func fetch(_ source: CachingPageSource, _ body: String, scan: ScanPaths?, forced: Bool = false) async throws -> CachingPageSource.Fetched {
        let upstream = FakeTransport { _ throws(UpstreamError) in .json(body) }
        return try await source.fetch(
            UpstreamRequest(url: PageURL(string: "http://api.test/items")!), policy: CachePolicy(ttl: .seconds(60), forceRevalidate: forced),
            transport: upstream,
            timeout: .seconds(5), maxBodyBytes: 1 << 20, scan: scan)
    }

    @Test("a stored page comes back, from the file after a restart too, with the scan and checksum it was stored with")
    func aStoredPageKeepsItsScanAndChecksum() async throws {
        let body = #"[{"id":1}, {"id":2}]"#
        let miss = try await fetch(CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20)), body, scan: paths)
        #expect(miss.outcome == .miss)
        #expect(miss.response.storedChecksum == XXHash64.hash(Array(body.utf8)))
        #expect(miss.response.storedScan?.page(for: paths) == (try paths.scan(Array(body.utf8))))
        // A new store over the same directory reads the file.
        let hit = try await fetch(CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20)), body, scan: paths)
        #expect(hit.outcome == .hit)
        #expect(hit.response.storedChecksum == miss.response.storedChecksum)
        #expect(hit.response.storedScan == miss.response.storedScan)
    }

    @Test("a page that is not valid JSON for the walk is not stored: the walk reports it, the next fetch asks again")
    func invalidJSONIsNotStored() async throws {
        let source = CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20))
        let fetched = try await fetch(source, "<html>Bad gateway</html>", scan: paths)
        #expect(fetched.outcome == .miss)
        #expect(fetched.response.storedChecksum == nil)
        let walker = PageWalker(base: PageURL(string: "http://api.test/items")!, scheme: .linkHeader(.init()), options: .init()) { _, _ in
            fetched.response
        }
        await #expect(throws: PaginationError.self) { _ = try await walker.pages() }
        // The HTML is not served: the upstream is asked again.
        let next = try await fetch(source, "[3]", scan: paths)
        #expect(next.outcome == .miss)
        #expect(next.response.body == Array("[3]".utf8))
        // A forced refetch that gets HTML leaves the version stored before (another route's items may be elsewhere).
        _ = try await fetch(source, "<html>Bad gateway</html>", scan: paths, forced: true)
        let kept = try await fetch(source, "[4]", scan: paths)
        #expect(kept.outcome == .hit)
        #expect(kept.response.body == Array("[3]".utf8))
    }

    @Test("the walker takes a page's items from its stored scan when the scan is for the walk's paths")
    func theWalkerUsesTheStoredScan() async throws {
        let body = Array(#"[{"id":1},{"id":2},{"id":3}]"#.utf8)
        var scanned = try paths.scan(body)
        // A stored scan that lists only the first item: if the walker used it, that is all the page yields.
        scanned.items = Array(scanned.items.prefix(1))
        var response = UpstreamResponse(status: .ok, headers: HTTPHeaders(), body: body)
        response.storedScan = StoredScan(scanned, for: paths)
        response.storedChecksum = 42
        let stored = response
        let walker = PageWalker(base: PageURL(string: "http://api.test/items")!, scheme: .linkHeader(.init()), options: .init()) { _, _ in
            stored
        }
        let page = try #require(try await walker.pages().first)
        #expect(page.itemBytes == [Array(#"{"id":1}"#.utf8)])
        #expect(page.storedChecksum == 42)
        // Another walk's paths (items elsewhere) do not match the signature: that walk scans for itself.
        response.storedScan = StoredScan(scanned, for: ScanPaths(itemsPath: JSONPath("data")!, valuePaths: []))
        let elsewhere = response
        let other = PageWalker(base: PageURL(string: "http://api.test/items")!, scheme: .linkHeader(.init()), options: .init()) { _, _ in
            elsewhere
        }
        #expect(try await other.pages().first?.itemCount == 3)
    }

    @Test("whether a page's items are one comma run is worked out as it is stored, kept when read back, and told to the walk's page")
    func theCommaRunIsKnownFromTheStoreOn() async throws {
        for (body, isRun) in [(#"[{"id":1},{"id":2}]"#, true), (#"[{"id":1}, {"id":2}]"#, false)] {
            let directory = TemporaryDirectory()
            let miss = try await fetch(CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20)), body, scan: paths)
            #expect(miss.response.storedScan?.isCommaRun == isRun)
            let hit = try await fetch(CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20)), body, scan: paths)
            #expect(hit.outcome == .hit)
            #expect(hit.response.storedScan?.isCommaRun == isRun)
            let response = hit.response
            let walker = PageWalker(base: PageURL(string: "http://api.test/items")!, scheme: .linkHeader(.init()), options: .init()) { _, _ in
                response
            }
            let page = try #require(try await walker.pages().first)
            #expect(page.storedIsCommaRun == isRun)
            #expect((page.commaSeparatedItems != nil) == isRun)
        }
    }

    @Test("a page believes the stored answer, and forgets it once its items are edited")
    func thePageUsesWhatTheStoreWorkedOutUntilItsItemsChange() throws {
        let body = Array(#"[{"id":1}, {"id":2},{"id":3}]"#.utf8)
        var page = Page(
            number: 1, url: PageURL(string: "http://api.test/items")!, status: .ok, headers: HTTPHeaders(), body: body,
            items: try paths.scan(body).items, values: [:])
        #expect(page.commaSeparatedItems == nil)
        // Told (here wrongly) that the items are one run, the page answers from it, not from the body.
        page.storedIsCommaRun = true
        #expect(page.commaSeparatedItems == 1..<(body.count - 1))
        // Dropping the first item (as the window does) forgets it: the rest is one run, worked out from the body.
        page.items.removeFirst()
        #expect(page.storedIsCommaRun == nil)
        #expect(page.commaSeparatedItems == 11..<(body.count - 1))
    }
}
