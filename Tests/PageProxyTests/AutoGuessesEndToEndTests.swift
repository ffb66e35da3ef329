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
}
