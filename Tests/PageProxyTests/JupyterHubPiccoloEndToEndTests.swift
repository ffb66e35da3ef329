import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// JupyterHub's REST API and Piccolo API's PiccoloCRUD as scripts/real-upstreams found them (branch real13), copied
/// into the mock and walked end to end: JupyterHub's next link inside `_pagination.next.url` with the total beside
/// it, and Piccolo's `{"rows": […]}` that says nothing of more pages, numbered by `__page`, with a `Content-Range`
/// total when asked for one.
@Suite struct JupyterHubPiccoloEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        // JupyterHub paginates only for a client that asks for its media type: the README's route names it.
        let accept: @Sendable (inout RouteConfig) -> Void = { $0.headers = [(name: "Accept", value: MockAccept.jupyterHubPagination)] }
        let unused = PaginationScheme.pageNumber(.init())
        var next = PaginationScheme.NextURLInBody()
        next.nextPath = JSONPath("_pagination.next.url") ?? .root
        var mailman = PaginationScheme.PageNumber(pageParameter: "page", sizeParameter: "count", pageSize: size)
        mailman.totalItemsPath = JSONPath("total_size")
        let piccolo = PaginationScheme.PageNumber(pageParameter: "__page", sizeParameter: "__page_size", pageSize: size)
        var capped = PaginationScheme.Offset(limit: 200)
        capped.totalItemsPath = JSONPath("_pagination.total")
        // A limit within the mock's largest page: short pages come only from items hidden after paginating.
        var within = PaginationScheme.Offset(limit: 20)
        within.totalItemsPath = JSONPath("_pagination.total")
        return [
            TestStack.Route(name: "jupyterhub", mockPath: "/jupyterhub/items?limit=\(size)", scheme: .nextURLInBody(next),
                            items: JSONPath("items") ?? .root, configure: accept),
            TestStack.Route(name: "jupyterhub-auto", mockPath: "/jupyterhub/items?limit=\(size)", scheme: unused) {
                auto(&$0)
                accept(&$0)
            },
            // The route's own limit above the mock's largest page (100), which JupyterHub reads as its largest.
            TestStack.Route(name: "jupyterhub-offset", mockPath: "/jupyterhub/items", scheme: .offset(capped),
                            items: JSONPath("items") ?? .root, configure: accept),
            TestStack.Route(name: "jupyterhub-filtered", mockPath: "/jupyterhub/items", scheme: .offset(within),
                            items: JSONPath("items") ?? .root, configure: accept),
            TestStack.Route(name: "mailman", mockPath: "/mailman/items?count=\(size)&page=1", scheme: .pageNumber(mailman),
                            items: JSONPath("entries") ?? .root),
            TestStack.Route(name: "mailman-auto", mockPath: "/mailman/items?count=\(size)&page=1", scheme: unused, configure: auto),
            TestStack.Route(name: "piccolo", mockPath: "/piccolo/items", scheme: .pageNumber(piccolo), items: JSONPath("rows") ?? .root),
            TestStack.Route(name: "piccolo-auto", mockPath: "/piccolo/items?__page_size=\(size)&__range_header=true", scheme: unused,
                            configure: auto),
        ]
    }

    @Test("JupyterHub: the next link at _pagination.next.url, each page once (explicit and auto: before real13 auto answered the first page alone)",
          arguments: ["jupyterhub", "jupyterhub-auto"])
    func jupyterHubNextLinks(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
                if route == "jupyterhub-auto" {
                    #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->next-url" : "auto->single-page"), "\(total)")
                    if total > Self.size { #expect(merged.header("PageProxy-Total") == String(total), "\(total)") }
                }
                stack.mock.log.reset()
                let ndjson = try await stack.get("/\(route)?mock_total=\(total)&_format=ndjson")
                #expect(ndjson.body == MockDataset.ndjson(total: total), "\(total)")
            }
        }
    }

    @Test("an offset route whose own limit is past the upstream's cap: a short page short of the total steps by what was served (before real13: 150 of 250 items, under a 200)")
    func offsetPastTheCap() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [100, 250, 450] {
                let (merged, requests) = try await Habits.merged(stack, "jupyterhub-offset", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total): \(merged.body.count) bytes")
                // Each page of the 100 served asked once, and none past the total.
                #expect(requests == (total + 99) / 100, "\(total)")
            }
        }
    }

    @Test("an offset route whose upstream hides items after paginating (the total counts them): short pages step by the limit once the second page serves another count (before: every page overlapped the one before, duplicates under a 200; review16 R4)")
    func offsetFilteredAfterPaginating() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let total = 250
            stack.mock.log.reset()
            // Every 7th id hidden: the first page of 20 serves 18, the second (asked at offset 18) 17.
            let merged = try await stack.get("/jupyterhub-filtered?mock_total=\(total)&mock_hide_every=7")
            #expect(merged.status == 200, "\(merged.text)")
            let ids = Self.ids(in: merged.text)
            let expected = Self.ids(in: String(decoding: MockDataset.mergedJSON(total: total, hidingEvery: 7), as: UTF8.self))
            #expect(Set(ids) == Set(expected), "items lost or added")
            // The second page, asked right after the first's 18 items, starts with what the first page's window held
            // beyond them (ids 19 and 20): those are dropped (attack14 M6; before, they were answered twice).
            let repeated = ids.count - Set(ids).count
            #expect(repeated == 0, "\(repeated) items answered twice")
            #expect(ids == expected)
            #expect(ids.filter { $0 > 40 }.count == Set(ids.filter { $0 > 40 }).count, "a repeat past the second page")
            // The pages after the first ask for its 18 and step by them (retest17 W3: an upstream that also caps loses
            // nothing): 1 + ⌈(250 − 18) / 18⌉ pages, where stepping by the limit of 20 asked 13.
            #expect(stack.mock.log.count <= 1 + (total - 18 + 17) / 18, "\(stack.mock.log.count) requests")
        }
    }

    /// The `id` of each item of a merged answer, in order (the mock's items carry no other `"id"` member).
    private static func ids(in text: String) -> [Int] {
        text.components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    @Test("Piccolo: __page until a short page with no total; auto on its Content-Range total numbers pages by __page (before real13: 502 not detected)",
          arguments: ["piccolo", "piccolo-auto"])
    func piccoloNumbers(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                if route == "piccolo" {
                    // Nothing says a full page is the last: 10 items cost the empty page after them.
                    #expect(requests == total / Self.size + 1, "\(total)")
                } else {
                    // The total says where the pages end: none past the last.
                    #expect(requests == Habits.pages(total), "\(total)")
                    if total > Self.size { #expect(merged.header("PageProxy-Scheme") == "auto->page-number", "\(total)") }
                }
            }
        }
    }

    @Test("Mailman 3: auto reads total_size and numbers pages by the URL's page with its count (before real13: the first page alone, under a 200)")
    func mailmanAuto() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [10, 25] {
                let (merged, requests) = try await Habits.merged(stack, "mailman-auto", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
                if total > Self.size { #expect(merged.header("PageProxy-Scheme") == "auto->page-number", "\(total)") }
            }
        }
    }

    @Test("Mailman 3 leaves entries out of an empty list's page: the page states total_size 0, so it is a page of no items (before: 502 for an empty list; REAL_UPSTREAMS.md, real13)",
          arguments: ["mailman-auto", "mailman"])
    func mailmanEmptyPageLeavesEntriesOut(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let (empty, requests) = try await Habits.merged(stack, route, total: 0)
            #expect(empty.status == 200, "\(empty.text)")
            #expect(empty.text == "[]")
            #expect(requests == 1)
            // (A page past the end, {"http_etag", "start": 40, "total_size": 25}: MLflowMastodonWalkTests.)
        }
    }

    @Test("probe on JupyterHub names its next link and total, not a single page")
    func probeReadsPagination() async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy([
                "probe", "http://127.0.0.1:\(stack.mockPort)/jupyterhub/items?limit=10&mock_total=25",
                "--header", "Accept: \(MockAccept.jupyterHubPagination)",
            ])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains(#"scheme   next-url (from body "_pagination.next.url")"#), "\(outcome.output)")
            #expect(outcome.output.contains("total    25 (_pagination.total)"), "\(outcome.output)")
            #expect(outcome.output.contains("next     http://127.0.0.1:\(stack.mockPort)/jupyterhub/items?limit=10&mock_total=25&offset=10"), "\(outcome.output)")
        }
    }
}
