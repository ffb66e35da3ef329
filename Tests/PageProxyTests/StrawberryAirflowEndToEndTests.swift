import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Strawberry's Relay connection and Apache Airflow's REST API as scripts/real-upstreams found them (branch real16),
/// copied into the mock and walked end to end: a Relay walk ends at `hasNextPage: false` (before: one request more,
/// for a page of no edges), auto refuses a connection that says more follow, naming the route that walks it (before:
/// with the items named, its first page under a 200), and answers one that ends; Airflow's capped `limit`.
@Suite struct StrawberryAirflowEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    private static let query = "query=" + MockQuery.encode("query($after:String,$first:Int){things(first:$first,after:$after){edges{node{id}} pageInfo{hasNextPage endCursor}}}")
    /// Above the mock's largest page (100), which Airflow reads as its largest without a word.
    private static let airflowLimit = 150
    private static let firstPage = "variables=" + MockQuery.encode(#"{"first":\#(size)}"#)

    private static func parsed(_ route: RouteConfig, _ pagination: String, items: String) -> RouteConfig {
        GrapheneDatatablesEndToEndTests.parsed(route, pagination, items: items)
    }

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let autoEdges: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: JSONPath("data.things.edges")) }
        let unused = PaginationScheme.pageNumber(.init())
        let json = #"{"scheme": "cursor", "queryEncoding": "json", "cursorPath": "data.things.pageInfo.endCursor", "cursorParameter": "variables.after", "sizeParameter": "variables.first", "pageSize": \#(size)}"#
        let airflow = #"{"scheme": "offset", "limit": \#(airflowLimit), "totalItemsPath": "total_entries"}"#
        return [
            TestStack.Route(name: "strawberry-json", mockPath: "/strawberry/items?\(query)", scheme: unused) { $0 = parsed($0, json, items: "data.things.edges") },
            TestStack.Route(name: "strawberry-auto", mockPath: "/strawberry/items?\(query)&\(firstPage)", scheme: unused, configure: auto),
            TestStack.Route(name: "strawberry-auto-items", mockPath: "/strawberry/items?\(query)&\(firstPage)", scheme: unused, configure: autoEdges),
            TestStack.Route(name: "airflow-capped", mockPath: "/airflow/items", scheme: unused) { $0 = parsed($0, airflow, items: "variables") },
            TestStack.Route(name: "airflow-auto", mockPath: "/airflow/items?limit=\(airflowLimit)", scheme: unused, configure: auto),
        ]
    }

    private static func edges(_ total: Int) -> [UInt8] { GrapheneDatatablesEndToEndTests.edges(total) }

    @Test("Strawberry: a cursor route on variables.after ends where hasNextPage is false (before real16: one more request, of no edges)")
    func strawberryEndsAtHasNextPage() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 5, 10, 25, 30] {
                let (merged, requests) = try await Habits.merged(stack, "strawberry-json", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text.prefix(300))")
                #expect(merged.body == Self.edges(total), "\(total): \(merged.text.prefix(200))")
                #expect(requests == Habits.pages(total), "\(total): \(requests)")
            }
        }
    }

    @Test("Strawberry: auto refuses a connection that says more follow, naming the route (before real16: 200 with the first page when the items were named)",
          arguments: ["strawberry-auto", "strawberry-auto-items"])
    func strawberryAutoRefuses(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let (merged, requests) = try await Habits.merged(stack, route, total: 25)
            #expect(merged.status == 502, "\(merged.text.prefix(300))")
            #expect(merged.text.contains(#""code":"pagination_not_detected""#), "\(merged.text.prefix(300))")
            #expect(merged.text.contains(#"\"queryEncoding\": \"json\""#), "\(merged.text.prefix(600))")
            #expect(requests == 1)
        }
    }

    @Test("Strawberry: auto answers a connection that ends on its first page, its edges the items")
    func strawberryAutoOnePage() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for route in ["strawberry-auto", "strawberry-auto-items"] {
                let (merged, requests) = try await Habits.merged(stack, route, total: 7)
                #expect(merged.status == 200, "\(route): \(merged.text.prefix(300))")
                #expect(merged.body == Self.edges(7), "\(route): \(merged.text.prefix(200))")
                #expect(merged.header("PageProxy-Scheme") == "auto->single-page")
                #expect(requests == 1)
            }
        }
    }

    @Test("Airflow: a limit above its largest page is read as the largest; the offset walk still answers every item once",
          arguments: ["airflow-capped", "airflow-auto"])
    func airflowCappedLimit(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 5, 100, 250] {
                let (merged, _) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(route) \(total): \(merged.text.prefix(300))")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(route) \(total): \(merged.text.prefix(200))")
            }
        }
    }
}
