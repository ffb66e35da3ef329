import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// End to end against the mock's copies of real servers' habits (issue 12): 404 past the last page, Django's
/// APPEND_SLASH redirect, a next URL with a total, head and body in two writes.
@Suite struct RealUpstreamHabitsTests {
    /// DRF's PageNumberPagination walked as a page-number API with no total: `?page=N&page_size=M`.
    private static func drfByNumber(lookahead: Int = 0, endStatuses: Set<Int> = [404]) -> TestStack.Route {
        var scheme = PaginationScheme.PageNumber()
        scheme.sizeParameter = "page_size"
        scheme.pageSize = 10
        scheme.lookahead = lookahead
        scheme.endStatuses = endStatuses
        return TestStack.Route(name: "numbered", mockPath: "/drf-pages/items/", scheme: .pageNumber(scheme), items: JSONPath("results")!)
    }

    /// DRF's PageNumberPagination followed by its `next` link, with its `count`.
    private static func drfWithCount(mockPath: String = "/drf-pages/items/", concurrency: Int = 4, maxPages: Int = 1000) -> TestStack.Route {
        var scheme = PaginationScheme.NextURLInBody()
        scheme.nextPath = JSONPath("next")!
        scheme.totalItemsPath = JSONPath("count")
        return TestStack.Route(
            name: "counted", mockPath: mockPath, scheme: .nextURLInBody(scheme), items: JSONPath("results")!, concurrency: concurrency,
            maxPages: maxPages)
    }

    @Test("a page-number walk with no total ends cleanly at DRF's 404 when the count is a multiple of the page size",
          arguments: [10, 20, 25, 100])
    func notFoundPastTheLastPageEndsTheWalk(total: Int) async throws {
        try await TestStack.run(routes: [Self.drfByNumber()]) { stack in
            let response = try await stack.get("/numbered?mock_total=\(total)")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: total))
            // Every page, and after a full last page the page past the end (DRF's 404).
            #expect(stack.mock.log.count == total / 10 + 1)
            #expect(response.header("PageProxy-Pages") == String((total + 9) / 10))
            let streamed = try await stack.get("/numbered?mock_total=\(total)&_format=ndjson")
            #expect(streamed.status == 200)
            #expect(streamed.text.split(separator: "\n").count == total)
        }
    }

    @Test("lookahead guesses past the end meet DRF's 404 and are dropped without error")
    func lookaheadPastTheEndIsDropped() async throws {
        try await TestStack.run(routes: [Self.drfByNumber(lookahead: 3)]) { stack in
            let response = try await stack.get("/numbered?mock_total=40")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 40))
        }
    }

    @Test("with endStatuses empty, DRF's 404 past the end is the 502 it was")
    func endStatusesCanBeTurnedOff() async throws {
        try await TestStack.run(routes: [Self.drfByNumber(endStatuses: [])]) { stack in
            let response = try await stack.get("/numbered?mock_total=20")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_status\""))
            #expect(response.text.contains("Invalid page."))
        }
    }

    @Test("Django's APPEND_SLASH redirect is followed within the origin, once per walk")
    func appendSlashRedirectIsFollowed() async throws {
        try await TestStack.run(routes: [Self.drfWithCount(mockPath: "/drf-pages/items")]) { stack in
            let response = try await stack.get("/counted?mock_total=45")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 45))
            let targets = stack.mock.log.requests.map(\.target)
            #expect(targets.first == "/drf-pages/items?mock_total=45")
            #expect(targets.dropFirst().first == "/drf-pages/items/?mock_total=45")
            // The redirect, then the five pages.
            #expect(targets.count == 6)
        }
    }

    @Test("a redirected page is cached under the URL the walk asked for: a warm repeat asks nothing, not even the redirect")
    func redirectedPagesAreCachedUnderTheRequestedURL() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cache = CacheConfig(directory: root, maxBytes: 64 << 20, requiredForReadiness: true)
        // Fresh for a day: the warm repeat expects no request however long a loaded machine takes.
        let route = Self.drfWithCount(mockPath: "/drf-pages/items").freshForADay
        try await TestStack.run(routes: [route], configure: { $0.cache = cache }) { stack in
            let cold = try await stack.get("/counted?mock_total=45")
            #expect(cold.status == 200)
            #expect(stack.mock.log.count == 6)
            stack.mock.log.reset()
            let warm = try await stack.get("/counted?mock_total=45&_format=ndjson")
            #expect(warm.text.split(separator: "\n").count == 45)
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a next URL with a total fetches the known pages concurrently, exactly up to the route's concurrency")
    func nextURLWithATotalFansOut() async throws {
        var options = SchemeRoutes.mockOptions
        // After the first page, nothing is answered until 4 requests wait at once (or 10 s pass, an issue the stack
        // records by name): the fan-out is proven from the mock's record.
        options.holdUntilInFlight = 4
        try await TestStack.run(routes: [Self.drfWithCount(concurrency: 4)], mockOptions: options) { stack in
            let response = try await stack.get("/counted?mock_total=100")
            #expect(response.body == MockDataset.mergedJSON(total: 100))
            #expect(stack.mock.log.count == 10)
            #expect(stack.mock.log.peakInFlight == 4)
        }
    }

    @Test("JSON:API's links.next with meta.total fans out too")
    func jsonAPIWithATotalFansOut() async throws {
        let route = SchemeRoutes.jsonAPIWithTotal(name: "articles")
        var options = SchemeRoutes.mockOptions
        options.holdUntilInFlight = 4
        try await TestStack.run(routes: [route], mockOptions: options) { stack in
            let response = try await stack.get("/articles?mock_total=95")
            #expect(response.body == MockDataset.mergedJSON(total: 95))
            #expect(stack.mock.log.count == 10)
            #expect(stack.mock.log.peakInFlight == 4)
        }
    }

    @Test("a total over maxPages fails at the first page")
    func totalOverMaxPagesFailsAtOnce() async throws {
        try await TestStack.run(routes: [Self.drfWithCount(maxPages: 5)]) { stack in
            let response = try await stack.get("/counted?mock_total=100")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"too_many_pages\""))
            #expect(stack.mock.log.count == 1)
        }
    }

    @Test("an upstream that writes head and body in two writes is read whole, over one reused connection")
    func splitHeadAndBodyIsReadWhole() async throws {
        var options = SchemeRoutes.mockOptions
        options.splitsHeadAndBody = true
        try await TestStack.run(routes: [SchemeRoutes.all[8]], mockOptions: options) { stack in
            let response = try await stack.get("/slack?mock_total=100")
            #expect(response.body == MockDataset.mergedJSON(total: 100))
            #expect(stack.mock.log.count == 10)
            #expect(stack.mockServer.acceptedConnections == 1)
        }
    }
}
