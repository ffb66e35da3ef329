import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Flask-AppBuilder's REST API and SAFRS as scripts/real-upstreams found them (branch real14), copied into the mock
/// and walked end to end: FAB's page inside a Rison `q`, which a route's `page` or `offset` parameter never reaches
/// (every page was the first, under a 200), and SAFRS's `links` that leave `next` out of the page before the one
/// `last` names (the walk ended a page short, under a 200); and matrix-synapse's admin lists, whose `next_token`
/// auto did not know (it walked by `offset`, which Synapse ignores: the first page over and over, under a 200).
@Suite struct FABSAFRSSynapseEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        let result = JSONPath("result") ?? .root
        // As a user writes a page-number route for FAB's list: pages from 0, its `count` as the total.
        let pages = PaginationScheme.PageNumber(firstPage: 0, sizeParameter: nil, totalItemsPath: JSONPath("count"))
        let openPages = PaginationScheme.PageNumber(firstPage: 0, sizeParameter: nil, pageSize: size)
        var offsets = PaginationScheme.Offset(limit: size)
        offsets.totalItemsPath = JSONPath("count")
        var next = PaginationScheme.NextURLInBody()
        next.nextPath = JSONPath("links.next") ?? .root
        var nextWithTotal = next
        nextWithTotal.totalItemsPath = JSONPath("meta.count")
        let fab = "/fab/items?q=(page_size:\(size))"
        return [
            TestStack.Route(name: "fab-pages", mockPath: fab, scheme: .pageNumber(pages), items: result),
            TestStack.Route(name: "fab-open", mockPath: fab, scheme: .pageNumber(openPages), items: result),
            TestStack.Route(name: "fab-offset", mockPath: fab, scheme: .offset(offsets), items: result),
            TestStack.Route(name: "fab-auto", mockPath: fab, scheme: unused, configure: auto),
            TestStack.Route(name: "safrs-next", mockPath: "/safrs/items?page[limit]=\(size)", scheme: .nextURLInBody(next),
                            items: JSONPath("data") ?? .root),
            TestStack.Route(name: "safrs-total", mockPath: "/safrs/items?page[limit]=\(size)", scheme: .nextURLInBody(nextWithTotal),
                            items: JSONPath("data") ?? .root),
            TestStack.Route(name: "safrs-auto", mockPath: "/safrs/items?page[limit]=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "synapse-auto", mockPath: "/synapse/items?from=0&limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "synapse-limit", mockPath: "/synapse/items?limit=\(size)", scheme: unused, configure: auto),
        ]
    }

    @Test("FAB: a route whose page parameter the upstream ignores fails at page 2 (before real14: the first page over and over, under a 200, or 1000 requests without a total)",
          arguments: ["fab-pages", "fab-open", "fab-offset"])
    func fabIgnoredPageNumber(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [25, 95] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 502, "\(route) \(total): \(merged.text.prefix(300))")
                #expect(merged.text.contains(#""code":"pagination_stuck""#), "\(route) \(total): \(merged.text.prefix(300))")
                #expect(merged.text.contains("holds the first page's items again"), "\(route) \(total)")
                // The first page and the one that repeats it; with a total the window may have asked a few more at once.
                #expect(requests >= 2 && requests <= Habits.pages(total), "\(route) \(total): \(requests)")
            }
            // One page of everything: nothing numbered, nothing to compare.
            let (single, _) = try await Habits.merged(stack, "fab-pages", total: 7)
            #expect(single.status == 200)
            #expect(single.body == MockDataset.mergedJSON(total: 7))
        }
    }

    @Test("FAB: auto sees a total and no way to the next page, and says so (the page is inside q, which it cannot number)")
    func fabAutoRefuses() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let (merged, _) = try await Habits.merged(stack, "fab-auto", total: 25)
            #expect(merged.status == 502)
            #expect(merged.text.contains(#""code":"pagination_not_detected""#), "\(merged.text.prefix(300))")
        }
    }

    @Test("SAFRS: the last page, which only `last` names, is walked too (before real14: 20 of 25 items, and 20 of 25 with the total and under auto)",
          arguments: ["safrs-next", "safrs-total", "safrs-auto"])
    func safrsLastLink(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 5, 10, 25, 30, 95] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(route) \(total): \(merged.text.prefix(300))")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(route) \(total): \(merged.body.count) bytes")
                // SAFRS's `last` for a multiple of the limit is the empty page past the end: without the total the walk
                // asks for it once; with it, it does not.
                let pastEnd = route == "safrs-next" && total >= Self.size && total % Self.size == 0 ? 1 : 0
                #expect(requests == Habits.pages(total) + pastEnd, "\(route) \(total): \(requests)")
                stack.mock.log.reset()
                let ndjson = try await stack.get("/\(route)?mock_total=\(total)&_format=ndjson")
                #expect(ndjson.body == MockDataset.ndjson(total: total), "\(route) \(total)")
            }
        }
    }

    @Test("Synapse: auto follows next_token as `from` (before real14: ?from=0&limit=10 walked by offset, the first page 3 times for 25 items, under a 200)",
          arguments: ["synapse-auto", "synapse-limit"])
    func synapseNextToken(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(route) \(total): \(merged.text.prefix(300))")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(route) \(total): \(merged.body.count) bytes")
                #expect(requests == Habits.pages(total), "\(route) \(total): \(requests)")
                if total > Self.size { #expect(merged.header("PageProxy-Scheme") == "auto->cursor", "\(route) \(total)") }
            }
        }
    }
}
