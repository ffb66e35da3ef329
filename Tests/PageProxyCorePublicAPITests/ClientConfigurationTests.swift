import Foundation
import PageProxyCore
import Testing

/// The client's cache and retries, configured through the public API, walking an injected upstream.
@Suite struct ClientConfigurationTests {
    private func walk(_ client: PageProxyClient) async throws -> Int {
        var count = 0
        for try await _ in client.items(of: RepositoryIssues()) { count += 1 }
        return count
    }

    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-api-\(UUID().uuidString)").path
    }

    @Test func aSecondWalkIsServedFromTheDiskCache() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let upstream = IssuePages(total: 35)
        let cache = PageCacheOptions(directory: directory, ttl: .seconds(3600))
        let client = PageProxyClient(configuration: .init(transport: upstream.transport, cache: cache))
        #expect(try await walk(client) == 35)
        #expect(upstream.requests.count == 4)
        #expect(try await walk(client) == 35)
        #expect(upstream.requests.count == 4)
        // A new client over the same directory finds the pages on disk.
        let another = PageProxyClient(configuration: .init(transport: upstream.transport, cache: cache))
        #expect(try await walk(another) == 35)
        #expect(upstream.requests.count == 4)
    }

    @Test func forcedRevalidationSendsTheValidatorAndKeepsThePageOn304() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let upstream = IssuePages(total: 5) { request, _ in
            request.header("If-None-Match") == "\"p1\"" ? PageResponse(statusCode: 304, headers: [("ETag", "\"p1\"")]) : nil
        }
        let fill = PageProxyClient(configuration: .init(transport: upstream.transport, cache: PageCacheOptions(directory: directory)))
        #expect(try await walk(fill) == 5)
        let revalidating = PageProxyClient(
            configuration: .init(transport: upstream.transport, cache: PageCacheOptions(directory: directory, forceRevalidate: true)))
        #expect(try await walk(revalidating) == 5)
        #expect(upstream.requests.map { $0.header("If-None-Match") } == [nil, "\"p1\""])
    }

    @Test func noCacheFetchesEveryWalk() async throws {
        let upstream = IssuePages(total: 5)
        let client = PageProxyClient(configuration: .init(transport: upstream.transport))
        _ = try await walk(client)
        _ = try await walk(client)
        #expect(upstream.requests.count == 2)
    }

    @Test func a503IsRetriedWithinTheBudget() async throws {
        let upstream = IssuePages(total: 25) { _, count in count == 2 ? PageResponse(statusCode: 503) : nil }
        let retry = RetryPolicy(budget: 1, baseDelay: .zero)
        let client = PageProxyClient(configuration: .init(transport: upstream.transport, retry: retry))
        #expect(try await walk(client) == 25)
        #expect(upstream.requests.count == 4)
    }

    @Test func withNoRetriesA503EndsTheWalkWithItsStatus() async throws {
        // Page 2 fails by its number, not by arrival: pages 2 and 3 are fetched concurrently, in either order.
        let upstream = IssuePages(total: 25) { request, _ in
            request.url.queryValue("page") == "2" ? PageResponse(statusCode: 503) : nil
        }
        let client = PageProxyClient(configuration: .init(transport: upstream.transport, retry: RetryPolicy(budget: 0)))
        let error = await #expect(throws: PaginationError.self) { _ = try await walk(client) }
        guard case .upstreamStatus(let page, _, let status, _) = error else {
            Issue.record("expected upstreamStatus, got \(String(describing: error))")
            return
        }
        #expect((page, status) == (2, 503))
        #expect(error?.code == "upstream_status")
    }
}
