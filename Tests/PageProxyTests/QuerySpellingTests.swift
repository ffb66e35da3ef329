import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack3 F5: a `lookahead` guess spells a page `?per_page=10&page=N`, the upstream's `Link` `?page=N&per_page=10`.
/// Both spellings are one cache entry: a route with lookahead and one without, over the same upstream, share every
/// page, and a `_fresh` walk through either leaves neither answering an older version.
@Suite struct QuerySpellingTests {
    /// A proxy with routes `la` (lookahead 3) and `lk` (none) over `upstream`, caching in a fresh directory.
    static func run(_ upstream: ChangingPagesUpstream, _ body: (TestStack) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-spelling-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(routes: []) { config in
            config.routes = [upstream.route("la", lookahead: 3), upstream.route("lk")]
            config.cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        } _: { stack in
            try await body(stack)
        }
    }

    /// The versions of the items `path` answers, merged or NDJSON, in page order.
    static func versions(_ stack: TestStack, _ path: String) async throws -> [Int] {
        let response = try await stack.get(path)
        #expect(response.status == 200)
        let text = response.text.hasPrefix("[") ? response.text : "[" + response.text.split(separator: "\n").joined(separator: ",") + "]"
        let items = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Int]])
        #expect(items.map { $0["page"] } == [1, 2, 3, 4, 5])
        return items.compactMap { $0["v"] }
    }

    @Test("after one route's walks, the other's costs no upstream request: guessed and linked spellings share entries")
    func routesShareEveryPage() async throws {
        let upstream = try ChangingPagesUpstream()
        try await Self.run(upstream) { stack in
            let plain = try await Self.versions(stack, "/lk")
            #expect(plain == [1, 1, 1, 1, 1])
            #expect(upstream.targets.count == 5)
            let guessing = try await Self.versions(stack, "/la")
            let streamed = try await Self.versions(stack, "/la?_format=ndjson")
            #expect(guessing == [1, 1, 1, 1, 1])
            #expect(streamed == [1, 1, 1, 1, 1])
            // Before: /la fetched and stored pages 2-4 again under its guesses' spelling.
            #expect(upstream.targets.count == 5)
        }
        await upstream.stop()
    }

    @Test("after a _fresh walk of changed pages through one route, the other answers the new pages only",
          arguments: [("la", "lk"), ("lk", "la")])
    func aFreshWalkReachesTheOtherRoute(fresh: String, other: String) async throws {
        let upstream = try ChangingPagesUpstream()
        try await Self.run(upstream) { stack in
            for path in ["/lk", "/la", "/lk", "/la"] {
                let primed = try await Self.versions(stack, path)
                #expect(primed == [1, 1, 1, 1, 1])
            }
            upstream.set(version: 2)
            let refetched = try await Self.versions(stack, "/\(fresh)?_fresh=1")
            #expect(refetched == [2, 2, 2, 2, 2])
            let before = upstream.targets.count
            for path in ["/\(other)", "/\(other)?_format=ndjson", "/\(fresh)", "/\(other)"] {
                let answered = try await Self.versions(stack, path)
                #expect(answered == [2, 2, 2, 2, 2], "\(path)")
            }
            #expect(upstream.targets.count == before)
        }
        await upstream.stop()
    }

    @Test("over the mock's GitLab (links sorted: page first), a lookahead walk after a plain one is all hits")
    func theMocksSortedLinksShareEntriesWithGuesses() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-spelling-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let routes = [("la", 3), ("lk", 0)].map { name, lookahead in
            TestStack.Route(name: name, mockPath: "/gitlab/items", scheme: .linkHeader(PaginationScheme.LinkHeader(pageSize: 10, lookahead: lookahead)))
                .freshForADay  // the second walk expects hits however long a loaded machine takes
        }
        try await TestStack.run(routes: routes) { config in
            config.cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        } _: { stack in
            let plain = try await stack.get("/lk?mock_total=50")
            #expect(plain.body == MockDataset.mergedJSON(total: 50))
            #expect(stack.mock.log.count == 5)
            // The guesses spell /gitlab/items?mock_total=50&per_page=10&page=N, the links ?mock_total=50&page=N&per_page=10.
            let guessing = try await stack.get("/la?mock_total=50")
            #expect(guessing.body == MockDataset.mergedJSON(total: 50))
            #expect(guessing.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 5)
        }
    }
}
