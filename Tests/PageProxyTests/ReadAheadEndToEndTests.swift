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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-readahead-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = Mutex<Config?>(nil)
        try await TestStack.run(routes: [SchemeRoutes.all[2]]) { (settings: inout Config) in
            settings.cache = CacheConfig(directory: directory, maxBytes: 64 << 20, memoBytes: 0)
            config.withLock { $0 = settings }
        } _: { stack in
            let first = try await stack.get(Self.target, headers: ["Accept": "application/x-ndjson"])
            #expect(first.status == 200)
            let firstMerged = try await stack.get(Self.target)
            // A second process over the same directory, against the same upstream: a restart, as far as its cache knows.
            let restarted = try PageProxyApp.start(config: try #require(config.withLock { $0 }), logger: Logger(level: .error))
            let store = try #require(restarted.pages.store)
            func get(ndjson: Bool) async throws -> RawHTTPClient.Response {
                try await RawHTTPClient.connect(port: restarted.server.port).request(
                    Self.target, headers: ndjson ? ["Accept": "application/x-ndjson"] : [:])
            }
            do {
                let read = try await get(ndjson: true)
                #expect(read.body == first.body)
                restarted.pages.waitForReadAhead()
                // Pages 2…5 are the first window, read at once; later ones are asked for, until the walk ends (then its
                // reads still queued are dropped: at most the 35 pages past the window are looked at).
                let asked = restarted.pages.readAheadRequests
                #expect(asked > 0)
                #expect(store.readAheadAskedCount <= 35)
                // A merged answer reads ahead too (fifth pass: it holds its pages, and no copy competes with the thread
                // that reads): the NDJSON walk was the entries' first hit, which kept no copy, so it reads them again.
                let reads = store.fileReadCount
                let merged = try await get(ndjson: false)
                restarted.pages.waitForReadAhead()
                #expect(merged.header("PageProxy-Cache") == "hits=40 misses=0 revalidated=0 stale=0 bypassed=0")
                #expect(merged.body == firstMerged.body)
                #expect(store.fileReadCount > reads)
                #expect(restarted.pages.readAheadRequests > asked)
                #expect(store.readAheadAskedCount <= 70)
                let (requests, looked) = (restarted.pages.readAheadRequests, store.readAheadAskedCount)
                // The merged walk kept the entries in memory: the next walk reads no file and asks for nothing.
                let again = store.fileReadCount
                let warm = try await get(ndjson: true)
                restarted.pages.waitForReadAhead()
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
}
