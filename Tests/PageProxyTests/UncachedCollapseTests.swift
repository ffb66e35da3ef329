import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack13: concurrent identical requests of a route that stores nothing (`ttlSeconds: 0`, or no cache at all) each
/// asked the upstream (200 clients of an 11-page walk: 2,201 upstream requests). DESIGN.md: concurrent requests for
/// the same page make one upstream request; the shared answer is stored nowhere.
@Suite struct UncachedCollapseTests {
    @Test("concurrent requests of a page nothing stores make one upstream request; the next request asks again",
          arguments: [true, false])
    func concurrentUncachedRequestsShareOneFetch(cacheConfigured: Bool) async throws {
        var route = SchemeRoutes.all[0]
        route.configure = { $0.ttl = .zero }
        let upstream = MockReleaseGate()
        var mockOptions = SchemeRoutes.mockOptions
        mockOptions.releaseGate = upstream
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-uncached-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clients = 8
        try await TestStack.run(routes: [route], mockOptions: mockOptions, configure: { config in
            if cacheConfigured { config.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }
        }) { stack in
            let answers = try await withThrowingTaskGroup(of: RawHTTPClient.Response.self) { group in
                for _ in 0..<clients { group.addTask { try await stack.get("/plain?mock_total=5") } }
                try await poll("every client waits for the one fetch, which reached the upstream") {
                    await stack.app.pages.waiterCount() == clients && upstream.waiting == 1
                }
                upstream.open()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for answer in answers {
                #expect(answer.status == 200)
                #expect(answer.body == MockDataset.mergedJSON(total: 5))
                #expect(answer.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=0 stale=0 bypassed=1")
            }
            #expect(stack.mock.log.count == 1, "\(stack.mock.log.count) upstream requests for \(clients) clients")
            // Nothing was kept: the next request asks the upstream again.
            #expect(try await stack.get("/plain?mock_total=5").status == 200)
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test("a page nothing stores is identified by its bytes as a stored one is: one answer, one ETag, whether the cache was on for it or not (review15 R10); a page the upstream marks no-store too (review20 L3)",
          arguments: [false, true])
    func aBypassedPageHasTheStoredPagesETag(noStore: Bool) async throws {
        // Mastodon's pages say `private, no-store`: the cached route asks the upstream through its store's path, which
        // stores nothing; the ttl-0 route through the uncached one.
        let mastodon = PaginationScheme.LinkHeader(sizeParameter: "limit", pageSize: SchemeRoutes.pageSize)
        let cached = noStore ? TestStack.Route(name: "plain", mockPath: "/mastodon/items", scheme: .linkHeader(mastodon)) : SchemeRoutes.all[0]
        var live = cached
        live.name = "live"
        live.configure = { $0.ttl = .zero }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-etag-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(routes: [cached, live], configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            let stored = try await stack.get("/plain?mock_total=25")
            let bypassed = try await stack.get("/live?mock_total=25")
            #expect(stored.status == 200, "\(stored.text)")
            #expect(stored.header("PageProxy-Cache") == "hits=0 misses=3 revalidated=0 stale=0 bypassed=0")
            #expect(bypassed.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=0 stale=0 bypassed=3")
            #expect(stored.body == bypassed.body)
            #expect(stored.header("ETag") != nil)
            #expect(stored.header("ETag") == bypassed.header("ETag"))
        }
    }
}
