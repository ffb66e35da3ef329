import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// review26 M1: a merged answer whose walk starts past the list's first item (a client's own `?page=3` or `?offset=20`,
/// a route whose `upstream` starts at `?page=3`) holds the items from there; the total the upstream states counts
/// the items before too. Before, a walk that read every page the total numbered was weighed against the whole total,
/// fell short of it, and the true `PageProxy-Total` was dropped.
@Suite struct MidListTotalEndToEndTests {
    /// `wrapped` as a route whose upstream URL starts at page 3.
    static var routes: [TestStack.Route] {
        var routes = SchemeRoutes.all
        if var fromThird = routes.first(where: { $0.name == "wrapped" }) {
            fromThird.name = "wrapped-from-3"
            fromThird.mockPath += "?page=3"
            routes.append(fromThird)
        }
        return routes
    }

    @Test("a walk from a client's page or offset, or a route's page, keeps the true total (before: none)", arguments: [
        // Page-number, pages of 10 numbered from page 3's: items 21–50 of 50.
        ("/wrapped?mock_total=50&page=3", 20),
        ("/wrapped-from-3?mock_total=50", 20),
        // Offset under a cap the second page showed (exact numbering): items 21–50.
        ("/drf?mock_total=50&mock_cap=6&offset=20", 20),
    ])
    func aMidListWalkKeepsItsTotal(target: String, first: Int) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get(target)
            #expect(answer.status == 200)
            #expect(answer.body == MockDataset.page(offset: first, count: 50 - first, total: 50), "\(answer.text.prefix(200))")
            #expect(answer.header("PageProxy-Total") == "50", "\(target): \(answer.header("PageProxy-Total") ?? "none")")
        }
    }

    @Test("a walk from page 3 whose last page falls short of the total from there still drops it")
    func aMidListWalkShortOfItsTotalDropsIt() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            // 95 items stated as 100: from page 3, 75 items where 80 were stated.
            let answer = try await stack.get("/wrapped?mock_total=95&mock_count_percent=106&page=3")
            #expect(answer.body == MockDataset.page(offset: 20, count: 75, total: 95), "\(answer.text.prefix(200))")
            #expect(answer.header("PageProxy-Total") == nil, "\(answer.header("PageProxy-Total") ?? "none")")
        }
    }
}
