import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Eve, django-tastypie and Datasette as scripts/real-upstreams found them (branch real10), copied into the mock
/// and walked end to end: Eve's relative `_links.next.href` (`items?page=2`, resolved against the request's path),
/// Tastypie's `meta.next` path and `meta.total_count`, Datasette's keyset `next`/`next_url`, rows as arrays beside
/// `suggested_facets`, and a bare array with the next page only in `Link`.
@Suite struct EveTastypieDatasetteEndToEndTests {
    private static let size = SchemeRoutes.pageSize

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        var eveNext = PaginationScheme.NextURLInBody(nextPath: JSONPath("_links.next.href") ?? .root)
        eveNext.totalItemsPath = JSONPath("_meta.total")
        var datasetteCursor = PaginationScheme.CursorInBody()
        datasetteCursor.cursorPath = JSONPath("next") ?? .root
        datasetteCursor.cursorParameter = "_next"
        datasetteCursor.sizeParameter = "_size"
        datasetteCursor.pageSize = size
        return [
            TestStack.Route(name: "eve-auto", mockPath: "/eve/items?max_results=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "eve-next", mockPath: "/eve/items?max_results=\(size)", scheme: .nextURLInBody(eveNext),
                            items: JSONPath("_items") ?? .root),
            TestStack.Route(name: "tastypie-auto", mockPath: "/tastypie/items/?limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "tastypie-all", mockPath: "/tastypie/items/?limit=0", scheme: unused, configure: auto),
            TestStack.Route(name: "datasette-rows", mockPath: "/datasette/items?_size=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "datasette-objects", mockPath: "/datasette/items?_size=\(size)&_shape=objects", scheme: unused, configure: auto),
            TestStack.Route(name: "datasette-array", mockPath: "/datasette/items?_size=\(size)&_shape=array", scheme: unused, configure: auto),
            TestStack.Route(name: "datasette-cursor", mockPath: "/datasette/items?_shape=objects", scheme: .cursorInBody(datasetteCursor),
                            items: JSONPath("rows") ?? .root),
        ]
    }

    private typealias Habits = RealHabitsEndToEndTests

    @Test("Eve (auto, and next-url on the relative _links.next.href), Datasette (rows of objects, the bare array with Link, the cursor sent back as _next): every page once, none past the last",
          arguments: ["eve-auto", "eve-next", "datasette-objects", "datasette-array", "datasette-cursor"])
    func everyPageOnce(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 35] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == Habits.expectedMerged(total), "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
                guard route.hasPrefix("eve") else { continue }
                // Every page the walk asked for is the mock's Eve route: the hrefs were resolved against /eve/items.
                #expect(stack.mock.log.requests.allSatisfy { $0.target.hasPrefix("/eve/items?") }, "\(stack.mock.log.requests.map(\.target))")
                // Eve leaves "next" out of a last page: a one-page collection is a single page.
                if route == "eve-auto" {
                    #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->next-url" : "auto->single-page"), "\(total)")
                }
            }
        }
    }

    @Test("auto on Eve and Tastypie: the body's total makes the pages the next link numbers known at once, up to the route's concurrency in flight",
          arguments: ["eve-auto", "tastypie-auto"])
    func autoNextURLWithTotalFansOut(route: String) async throws {
        var options = SchemeRoutes.mockOptions
        // The mock answers nothing until 4 requests (the route's concurrency) are in flight at once, or 10 s have
        // passed (an issue the stack records): the peak is proven from the mock's record, whatever the machine's load.
        options.holdUntilInFlight = 4
        options.latency = .milliseconds(10)
        try await TestStack.run(routes: Self.routes, mockOptions: options) { stack in
            let (merged, requests) = try await Habits.merged(stack, route, total: 100)
            #expect(merged.body == Habits.expectedMerged(100))
            #expect(requests == 10)
            #expect(stack.mock.log.peakInFlight == 4)
        }
    }

    @Test("Tastypie: auto walks meta.next with meta.total_count; ?limit=0 is one page of everything")
    func tastypie() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 35] {
                let (merged, requests) = try await Habits.merged(stack, "tastypie-auto", total: total)
                #expect(merged.body == Habits.expectedMerged(total), "\(total): \(merged.text)")
                #expect(requests == Habits.pages(total), "\(total)")
                #expect(merged.header("PageProxy-Scheme") == "auto->next-url")
            }
            let (all, requests) = try await Habits.merged(stack, "tastypie-all", total: 35)
            #expect(all.body == Habits.expectedMerged(35))
            #expect(requests == 1)
        }
    }

    @Test("Datasette's default shape: the rows (arrays) are the items, not the one array of objects, suggested_facets")
    func datasetteRows() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let (merged, requests) = try await Habits.merged(stack, "datasette-rows", total: 25)
            let rows = (1...25).map { #"[\#($0),"item-\#($0)"]"# }.joined(separator: ",")
            #expect(merged.text == "[\(rows)]")
            #expect(requests == 3)
            #expect(merged.header("PageProxy-Scheme") == "auto->link-header")
        }
    }
}
