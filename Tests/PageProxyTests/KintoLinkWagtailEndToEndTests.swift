import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Kinto, drf-link-header-pagination and Wagtail's API v2 as scripts/real-upstreams found them (branch real11),
/// copied into the mock and walked end to end: Kinto's next page as an absolute URL in a `Next-Page` header (a fresh
/// `_token` each time, no total, `no-store`), a bare array with RFC 8288 `Link` prev/next/first/last, and
/// `{"meta": {"total_count"}, "items"}` paged by `?offset=&limit=` with no link and a 400 above the largest limit.
/// And an upstream that answers the same page again under a new URL: a 502 that says so, not a thousand requests.
@Suite struct KintoLinkWagtailEndToEndTests {
    private static let size = SchemeRoutes.pageSize

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        let kinto = PaginationScheme.NextPageHeader(nextPageHeader: "Next-Page", totalPagesHeader: nil, sizeParameter: nil)
        var wagtail = PaginationScheme.Offset(limit: size)
        wagtail.totalItemsPath = JSONPath("meta.total_count")
        var wagtailNoTotal = PaginationScheme.Offset(limit: size)
        wagtailNoTotal.totalItemsPath = nil
        return [
            TestStack.Route(name: "kinto", mockPath: "/kinto/items?_limit=\(size)", scheme: .nextPageHeader(kinto), items: JSONPath("data") ?? .root),
            TestStack.Route(name: "kinto-auto", mockPath: "/kinto/items?_limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "link", mockPath: "/drf-link/items/?page_size=\(size)", scheme: .linkHeader(.init())),
            TestStack.Route(name: "link-auto", mockPath: "/drf-link/items/?page_size=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "link-offset", mockPath: "/drf-link-offset/items/?limit=\(size)", scheme: .linkHeader(.init())),
            TestStack.Route(name: "link-offset-auto", mockPath: "/drf-link-offset/items/?limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "wagtail", mockPath: "/wagtail/items/", scheme: .offset(wagtail), items: JSONPath("items") ?? .root),
            TestStack.Route(
                name: "wagtail-nototal", mockPath: "/wagtail/items/", scheme: .offset(wagtailNoTotal), items: JSONPath("items") ?? .root),
            TestStack.Route(name: "wagtail-auto", mockPath: "/wagtail/items/?limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(
                name: "wagtail-big", mockPath: "/wagtail/items/", scheme: .offset(.init(limit: 1000)), items: JSONPath("items") ?? .root),
            TestStack.Route(
                name: "drf-next", mockPath: "/drf-pages/items/?page_size=\(size)", scheme: .nextURLInBody(.init()),
                items: JSONPath("results") ?? .root),
        ]
    }

    private typealias Habits = RealHabitsEndToEndTests

    @Test("Kinto: the Next-Page header's URL is followed (explicit and auto), every page once, none past the last; nothing stored (no-store)",
          arguments: ["kinto", "kinto-auto"])
    func kintoNextPageURL(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 35] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
                if route == "kinto-auto" {
                    #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->next-page-header" : "auto->single-page"), "\(total)")
                }
            }
            // Every token is new (a fresh nonce) and the answers say no-store: the same request walks again.
            let (again, requests) = try await Habits.merged(stack, route, total: 35)
            #expect(again.body == MockDataset.mergedJSON(total: 35))
            #expect(requests == 4)
            stack.mock.log.reset()
            let ndjson = try await stack.get("/\(route)?mock_total=35&_format=ndjson")
            #expect(ndjson.body == MockDataset.ndjson(total: 35))
        }
    }

    @Test("drf-link-header-pagination: a bare array with Link prev/next/first/last; the first page's last link numbers every page, by page or by offset (explicit and auto)",
          arguments: ["link", "link-auto", "link-offset", "link-offset-auto"])
    func linkHeaderPages(route: String) async throws {
        var options = SchemeRoutes.mockOptions
        // Nothing is answered until 4 requests are in flight (or 10 s pass, an issue the stack records): the fan-out is proven from the mock's record.
        options.holdUntilInFlight = 4
        try await TestStack.run(routes: Self.routes, mockOptions: options) { stack in
            let (merged, requests) = try await Habits.merged(stack, route, total: 100)
            #expect(merged.status == 200, "\(merged.text)")
            #expect(merged.body == MockDataset.mergedJSON(total: 100))
            #expect(requests == 10)
            #expect(stack.mock.log.peakInFlight == 4)
            if route.hasSuffix("-auto") { #expect(merged.header("PageProxy-Scheme") == "auto->link-header") }
        }
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 35] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total): \(merged.text)")
                #expect(requests == Habits.pages(total), "\(total)")
            }
        }
    }

    @Test("Wagtail: ?offset=&limit= with meta.total_count (explicit and auto with ?limit=), no link; the empty page after a full last one ends it (with the total too: review17 B10)",
          arguments: ["wagtail", "wagtail-nototal", "wagtail-auto"])
    func wagtailOffsetWithTotal(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 35] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == Habits.expectedMerged(total), "\(total)")
                // A full last page (10) is followed by the empty one past it: with no total, and with one, which may be
                // lower than the truth (review17 B10). (auto answers the one page whole: `single-page`.)
                let extra = route != "wagtail-auto" && total % Self.size == 0 && total > 0 ? 1 : 0
                #expect(requests == Habits.pages(total) + extra, "\(total)")
                if route == "wagtail-auto" { #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->offset" : "auto->single-page")) }
            }
        }
    }

    @Test("Wagtail: a limit above its largest is refused with a 400 (not capped), relayed as the client's error")
    func wagtailLimitTooHigh() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/wagtail-big?mock_total=35")
            #expect(answer.status == 400)
            #expect(answer.text.contains("\"code\":\"upstream_client_error\""))
            #expect(answer.text.contains("limit cannot be higher than 100"))
        }
    }

    @Test("an upstream that answers page 2 again under new URLs (next link or Next-Page header): a 502 that says so after the bound",
          arguments: ["drf-next", "kinto"])
    func repeatedPageIsA502(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            stack.mock.log.reset()
            let answer = try await stack.get("/\(route)?mock_total=100&mock_fault=repeatPage@2")
            #expect(answer.status == 502, "\(answer.text)")
            #expect(answer.text.contains("\"code\":\"pagination_repeated_page\""))
            // Each repeat comes under a new link (`mock_again` renumbered), as constant data would: the walk stops after
            // RepeatedPageGuard.maxRepeatsInRow repeats in a row, not at maxPages.
            let repeats = RepeatedPageGuard.maxRepeatsInRow + 1
            #expect(answer.text.contains("\"page\":\(2 + repeats)"))
            #expect(stack.mock.log.count == 2 + repeats)
            // The same walk without the fault is whole: the guard does not fire on honest pages.
            let (merged, requests) = try await Habits.merged(stack, route, total: 100)
            #expect(merged.status == 200)
            #expect(requests == 10)
        }
    }
}
