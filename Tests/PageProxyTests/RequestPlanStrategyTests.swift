import PageProxyCore
import Testing

@testable import PageProxy

/// A plan's strategy (issue 13): made once with the plan for a route's own scheme, the one its walks then use, not
/// made again for every walk; an auto route has none until its first page is read.
@Suite struct RequestPlanStrategyTests {
    private static func plan(_ pagination: RoutePagination, target: String = "/items?a=1") throws -> RequestPlan {
        var route = RouteConfig.makeForTests(name: "items", upstream: "http://api.test/items", pagination: .offset(PaginationScheme.Offset()))
        route.pagination = pagination
        let request = HTTPRequestHead(method: .get, target: target, headers: HTTPHeaders([("Host", "x")]))
        return try RequestPlan(request: request, route: route, subpath: "", lookahead: LookaheadMemory())
    }

    @Test("a route's own scheme: the plan holds its strategy, which gives the plan's first page and scanned paths")
    func aFixedSchemesPlanHoldsItsStrategy() throws {
        let scheme = PaginationScheme.offset(PaginationScheme.Offset())
        let plan = try Self.plan(.scheme(scheme))
        let strategy = try #require(plan.strategy)
        let first = try #require(plan.options.firstPage)
        #expect(strategy.firstPage(from: plan.base) == first)
        #expect(strategy.guessNext(after: first) == scheme.makeStrategy().guessNext(after: first))
        #expect(plan.scanPaths == ScanPaths(itemsPath: plan.route.itemsPath, valuePaths: strategy.valuePaths))
    }

    @Test func anAutoRoutesPlanHasNoStrategy() throws {
        #expect(try Self.plan(.auto(itemsPath: nil)).strategy == nil)
    }

    /// attack16 L1: only the route's own query's secret values were hidden from an upstream's error body; the client's
    /// own `access_token`, merged into the URL sent, was quoted back beside a redacted `upstream_url`.
    @Test("the secrets a plan hides from error bodies include the client's secret query values")
    func theClientsQuerySecretsAreHidden() throws {
        let plan = try Self.plan(.scheme(.offset(PaginationScheme.Offset())), target: "/items?access_token=QAT2-client&password=PW-client&a=1")
        #expect(plan.secrets.contains("QAT2-client") && plan.secrets.contains("PW-client"), "\(plan.secrets)")
    }
}
