import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Reddit's listings, Zendesk's side-loading lists and Notion's list envelope as real19 replayed them, copied into
/// the mock and walked end to end under `scheme: "auto"` (real19 F1, F2, F4) and with `morePath` (F3).
@Suite struct RedditZendeskNotionEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        let zendesk = MockService.zendesk.path + "?page[size]=\(size)"
        var next = PaginationScheme.NextURLInBody(nextPath: JSONPath("links.next") ?? .root)
        let withoutMore = next
        next.morePath = JSONPath("meta.has_more")
        let items = JSONPath("activities") ?? .root
        return [
            TestStack.Route(name: "reddit-auto", mockPath: "/reddit/items?raw_json=1&sort=top&limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "zendesk-auto", mockPath: zendesk, scheme: unused, configure: auto),
            TestStack.Route(name: "zendesk-more", mockPath: zendesk, scheme: .nextURLInBody(next), items: items),
            TestStack.Route(name: "zendesk-no-more", mockPath: zendesk, scheme: .nextURLInBody(withoutMore), items: items),
            TestStack.Route(name: "notion-auto", mockPath: "/notion/items?page_size=\(size)", scheme: unused, configure: auto),
        ]
    }

    /// The merged and NDJSON answers of `route` for each total are the mock's items in order, by `pages` requests.
    private func expectWalks(_ route: String, scheme: String, items: String, pages: (Int) -> Int) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(route) \(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(route) \(total)")
                #expect(requests == pages(total), "\(route) \(total)")
                // A last page's null cursor or link still tells the scheme: never single-page.
                #expect(merged.header("PageProxy-Scheme") == scheme)
                #expect(merged.header("PageProxy-Items-Path") == items)
                let ndjson = try await stack.get("/\(route)?mock_total=\(total)&_format=ndjson")
                #expect(ndjson.body == MockDataset.ndjson(total: total), "\(route) \(total)")
            }
        }
    }

    @Test("Reddit: auto walks data.after back as ?after= to the last page's null (real19 F1: 200 with the first page only)")
    func redditListing() async throws {
        try await expectWalks("reddit-auto", scheme: "auto->cursor", items: "data.children", pages: Habits.pages)
    }

    @Test("Zendesk: auto answers the activities the URL names, not the side-loaded users, and stops on has_more false (F2, F3)")
    func zendeskSideLoading() async throws {
        try await expectWalks("zendesk-auto", scheme: "auto->next-url", items: "activities", pages: Habits.pages)
    }

    @Test("Notion: auto sends next_cursor back as start_cursor (real19 F4: sent as cursor, the first page again)")
    func notionStartCursor() async throws {
        try await expectWalks("notion-auto", scheme: "auto->cursor", items: "results", pages: Habits.pages)
    }

    @Test("morePath: a next-url route stops where has_more is false; without it the walk asks the empty page past the end")
    func morePathSavesARequest() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [10, 25] {
                let (more, withMore) = try await Habits.merged(stack, "zendesk-more", total: total)
                #expect(more.status == 200, "\(more.text)")
                #expect(more.body == MockDataset.mergedJSON(total: total))
                #expect(withMore == Habits.pages(total))
                let (plain, without) = try await Habits.merged(stack, "zendesk-no-more", total: total)
                #expect(plain.body == MockDataset.mergedJSON(total: total))
                #expect(without == Habits.pages(total) + 1)
            }
        }
    }
}
