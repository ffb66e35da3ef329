import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `scheme: "auto"` where it had to guess, walked end to end against the mock: the items of a page whose listed key
/// holds strings beside an array of facet objects (attack14 M7), and the page parameter of ASP.NET Core's
/// `X-Pagination` habit (attack14 H3, review17 B7).
@Suite struct AutoGuessesEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        return [
            TestStack.Route(name: "facets-auto", mockPath: "/facets/items?per_page=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "aspnet-auto", mockPath: "/aspnet/items?pageSize=\(size)", scheme: unused, configure: auto),
        ]
    }

    @Test("a listed key holding strings is the items, not the page's other array of objects (before: the facets, with a 200)")
    func scalarItems() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [1, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, "facets-auto", total: total)
                let expected = "[" + (0..<total).map { JSONText.string(MockWireFormats.facetItem($0)) }.joined(separator: ",") + "]"
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.text == expected, "\(total)")
                #expect(merged.header("PageProxy-Items-Path") == "results", "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
            }
        }
    }

    @Test("ASP.NET's X-Pagination CurrentPage: pages numbered by pageNumber, every item once (before: page 1 again and again, with a 200)")
    func aspNetPageNumber() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, "aspnet-auto", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total): \(merged.text)")
                #expect(requests == Habits.pages(total), "\(total)")
                #expect(merged.header("PageProxy-Scheme") == "auto->page-number", "\(total)")
            }
            stack.mock.log.reset()
            _ = try await stack.get("/aspnet-auto?mock_total=25")
            #expect(stack.mock.log.requests.map(\.target).filter { $0.contains("pageNumber=") }.count == 2)
        }
    }
}
