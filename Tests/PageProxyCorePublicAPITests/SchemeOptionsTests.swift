import PageProxyCore
import Synchronization
import Testing

/// The scheme option structs are built with memberwise initialisers whose defaults are the best-known services'.
@Suite struct SchemeOptionsTests {
    @Test func pageNumberOptionsSetInTheInitialiserShapeTheRequests() async throws {
        let seen = Mutex<[String]>([])
        let transport = PageTransport { request throws(UpstreamError) in
            seen.withLock { $0.append(request.url.query ?? "") }
            let page = Int(request.url.queryValue("p") ?? "") ?? -1
            return PageResponse(statusCode: 200, body: Array((page < 2 ? "[\(2 * page + 1),\(2 * page + 2)]" : "[5]").utf8))
        }
        let scheme = PaginationScheme.pageNumber(.init(pageParameter: "p", firstPage: 0, sizeParameter: "size", pageSize: 2))
        let source = PaginatedSource(url: PageURL(string: "http://api.test/things")!, scheme: scheme)
        var items: [String] = []
        for try await item in PageProxyClient(configuration: .init(transport: transport)).items(of: source) {
            items.append(String(decoding: item, as: UTF8.self))
        }
        #expect(items == ["1", "2", "3", "4", "5"])
        #expect(seen.withLock { $0 }.map { Set($0.split(separator: "&")) } == [["p=0", "size=2"], ["p=1", "size=2"], ["p=2", "size=2"]])
    }

    @Test func defaultsAreTheBestKnownServices() {
        #expect(PaginationScheme.LinkHeader() == PaginationScheme.LinkHeader(pageParameter: "page", sizeParameter: "per_page"))
        #expect(PaginationScheme.HasMore().afterParameter == "starting_after")
        #expect(PaginationScheme.CursorInBody(pageSize: 10).cursorParameter == "cursor")
        #expect(PaginationScheme.Offset(limit: 25).limitParameter == "limit")
        #expect(RetryPolicy(budget: 1).maxDelay == .seconds(5))
        #expect(WalkLimits(concurrency: 2).maxPages == 1000)
    }
}
