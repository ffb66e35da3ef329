import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `scheme: "auto"` on upstreams it answered with part of the list, or the wrong items, before auto14, copied into
/// the mock and walked end to end: "more pages" in spellings of their own (review17 B1 and B2, attack14 M8: Spring
/// Data's `Page`, Microsoft Graph's `@odata.nextLink`), items that are strings beside an array of facet objects
/// (attack14 M7), and the page parameter of ASP.NET Core's `X-Pagination` habit (attack14 H3, review17 B7).
@Suite struct CommonSpellingsEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        return [
            ("spring-auto", "/spring/items?size=\(size)"), ("graph-auto", "/graph/items?$top=\(size)"),
            ("facets-auto", "/facets/items?per_page=\(size)"), ("aspnet-auto", "/aspnet/items?pageSize=\(size)"),
        ].map { TestStack.Route(name: $0.0, mockPath: $0.1, scheme: unused, configure: auto) }
    }

    /// Walks `route` over 0, 10 and 25 items (1, 10, 25 for `facets`, whose items are no dataset's): every item once,
    /// one request a page, and what `check` asks of each answer.
    private func walksEveryItem(
        _ route: String, expected: @escaping (Int) -> [UInt8] = MockDataset.mergedJSON(total:),
        totals: [Int] = [0, 10, 25], check: @escaping (RawHTTPClient.Response, Int) -> Void
    ) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in totals {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == expected(total), "\(total): \(merged.text)")
                #expect(requests == Habits.pages(total), "\(total)")
                check(merged, total)
            }
        }
    }

    @Test("Spring Data's Page: numbered by page from the body's 0, every item once, the total from totalElements (before: the first page alone)")
    func springPage() async throws {
        try await walksEveryItem("spring-auto") { merged, total in
            #expect(merged.header("PageProxy-Scheme") == "auto->page-number", "\(total)")
            if total > Self.size { #expect(merged.header("PageProxy-Total") == String(total), "\(total)") }
        }
        // The second page is the upstream's page 1 (0-based), asked once (review17 B2: it was never asked).
        try await TestStack.run(routes: Self.routes) { stack in
            _ = try await stack.get("/spring-auto?mock_total=25")
            let targets = stack.mock.log.requests.map(\.target)
            #expect(targets.filter { $0.hasSuffix("page=1") || $0.contains("page=1&") }.count == 1, "\(targets)")
        }
    }

    @Test("Microsoft Graph: the link at \"@odata.nextLink\" (one key, dot and all) followed to the end (before: the first page alone)")
    func graphNextLink() async throws {
        try await walksEveryItem("graph-auto") { merged, total in
            #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->next-url" : "auto->single-page"), "\(total)")
            #expect(merged.header("PageProxy-Items-Path") == "value", "\(total)")
        }
    }

    @Test("a listed key holding strings is the items, not the page's other array of objects (before: the facets, with a 200)")
    func scalarItems() async throws {
        let expected: (Int) -> [UInt8] = { total in
            Array(("[" + (0..<total).map { JSONText.string(MockWireFormats.facetItem($0)) }.joined(separator: ",") + "]").utf8)
        }
        try await walksEveryItem("facets-auto", expected: expected, totals: [1, 10, 25]) { merged, total in
            #expect(merged.header("PageProxy-Items-Path") == "results", "\(total)")
        }
    }

    @Test("ASP.NET's X-Pagination CurrentPage: pages numbered by pageNumber, every item once (before: page 1 again and again, with a 200)")
    func aspNetPageNumber() async throws {
        try await walksEveryItem("aspnet-auto") { merged, total in
            #expect(merged.header("PageProxy-Scheme") == "auto->page-number", "\(total)")
        }
        try await TestStack.run(routes: Self.routes) { stack in
            _ = try await stack.get("/aspnet-auto?mock_total=25")
            #expect(stack.mock.log.requests.map(\.target).filter { $0.contains("pageNumber=") }.count == 2)
        }
    }
}
