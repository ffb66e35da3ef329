import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A cache directory unusable when the proxy starts (a volume mounted late, permissions set after the start) does not
/// leave the proxy uncached, and `/readyz` 503, until a restart: it is tried again, as a directory that fails while the
/// proxy runs is, and the cache serves once it works.
@Suite struct CacheDirectoryLateTests {
    @Test("a cache directory unusable at the start: uncached and not ready, then, once it works, cached and ready, said once in the log")
    func aCacheDirectoryUnusableAtTheStartIsUsedOnceItWorks() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-late-\(UUID().uuidString)").path
        // A file where the directory should be: nothing can be made there yet.
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: root))
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Fresh for a day: the warm repeat below expects hits however long a loaded machine takes (not about expiry).
        let github = SchemeRoutes.all[2].freshForADay
        let cache = CacheConfig(directory: root, maxBytes: 64 << 20, retryInterval: .milliseconds(20))
        try await TestStack.run(routes: [github], configure: { $0.cache = cache }) { stack in
            let uncached = try await stack.get(CacheTests.target)
            #expect(uncached.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=0 stale=0 bypassed=5")
            #expect(try await stack.get("/readyz").status == 503)
            try FileManager.default.removeItem(atPath: root)
            // The store tries the directory again on its own (every 20 ms): a poll bounded by time, not by a count.
            try await poll("the cache is ready again") { (try? await stack.get("/readyz").status) == 200 }
            let cold = try await stack.get(CacheTests.target)
            #expect(cold.header("PageProxy-Cache") == "hits=0 misses=5 revalidated=0 stale=0 bypassed=0")
            stack.mock.log.reset()
            let warm = try await stack.get(CacheTests.target)
            #expect(warm.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(warm.body == MockDataset.mergedJSON(total: 50))
            #expect(stack.mock.log.count == 0)
            #expect(stack.logs.lines.filter { $0.contains("cache enabled again") }.count == 1)
            #expect(stack.logs.lines.filter { $0.contains("cache disabled; serving uncached") }.count == 1)
        }
    }
}
