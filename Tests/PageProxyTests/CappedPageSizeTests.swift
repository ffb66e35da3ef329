import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack12 L4: a client's page size above the route's (`per_page=200` where the route asks 10) may be past the
/// upstream's cap (the mock serves at most 100 a page, as GitHub and GitLab do). Such a size ends no walk at a short
/// page, steps no offset, and places no window: the whole list and the window's own items, never a short list or
/// another window's items under a 200.
@Suite struct CappedPageSizeTests {
    static let total = 450

    /// The page-number and offset routes, with and without a total, and the size parameter each reads; `unsized` is
    /// a page-number route that names no `pageSize` (review14 F12: it trusted any size a client asked).
    static let routes = [("plain", "per_page"), ("wrapped", "per_page"), ("drf", "limit"), ("offset", "limit"), ("unsized", "per_page")]

    /// `SchemeRoutes.all` and `unsized`, the mock's plain page-number service with no page size in the route.
    static var stackRoutes: [TestStack.Route] {
        SchemeRoutes.all + [TestStack.Route(name: "unsized", mockPath: "/plain/items", scheme: .pageNumber(PaginationScheme.PageNumber()))]
    }

    @Test("a size past the upstream's cap still walks the whole list", arguments: routes)
    func theWholeListComesBack(route: String, size: String) async throws {
        try await TestStack.run(routes: Self.stackRoutes) { stack in
            let response = try await stack.get("/\(route)?mock_total=\(Self.total)&\(size)=200")
            #expect(response.status == 200, "\(route): \(response.text)")
            #expect(response.body == MockDataset.mergedJSON(total: Self.total), "\(route): \(response.body.count) bytes")
        }
    }

    @Test("a window over a size past the upstream's cap holds its own items", arguments: routes)
    func aWindowHoldsItsOwnItems(route: String, size: String) async throws {
        try await TestStack.run(routes: Self.stackRoutes) { stack in
            let response = try await stack.get("/\(route)?mock_total=\(Self.total)&\(size)=200&_offset=250&_limit=3")
            #expect(response.status == 200, "\(route): \(response.text)")
            #expect(response.body == MockDataset.page(offset: 250, count: 3, total: Self.total), "\(route): \(response.text)")
        }
    }

    @Test("the route's own size still ends a walk at its short page: no request past it", arguments: [("plain", "per_page"), ("offset", "limit")])
    func theRoutesOwnSizeIsTrusted(route: String, size: String) async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/\(route)?mock_total=25&\(size)=10")
            #expect(response.body == MockDataset.mergedJSON(total: 25))
            #expect(stack.mock.log.count == 3)
        }
    }

    @Test("a route with no page size learns the upstream's cap from its first page: its short last page ends the walk (review14 F13)")
    func anUnsizedRouteEndsAtTheShortLastPage() async throws {
        try await TestStack.run(routes: Self.stackRoutes) { stack in
            let response = try await stack.get("/unsized?mock_total=\(Self.total)&per_page=200&_format=ndjson")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.ndjson(total: Self.total))
            // 100, 100, 100, 100 and 50 items: the fifth page is short of the first's 100, and ends the walk.
            #expect(stack.mock.log.count == 5)
        }
    }
}
