import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// MediaWiki's `continue` object and Roundup's links array, as real20 ran them, copied into the mock and walked end to
/// end: under `scheme: "auto"` with the route's `items` named (real20 F1: each answered 100 of 1,000 with a 200), and
/// MediaWiki's generator with a prop module, whose continuation has two members that change apart (F2).
@Suite struct MediaWikiRoundupEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        func auto(_ items: String) -> @Sendable (inout RouteConfig) -> Void {
            let path = JSONPath(items)
            return { $0.pagination = .auto(itemsPath: path) }
        }
        let unused = PaginationScheme.pageNumber(.init())
        var batches = PaginationScheme.CursorInBody()
        batches.cursorObjectPath = JSONPath("continue")
        batches.sizeParameter = nil
        return [
            TestStack.Route(
                name: "mediawiki-auto", mockPath: MockService.mediawiki.path + "?action=query&list=allpages&aplimit=\(size)", scheme: unused,
                configure: auto("query.allpages")),
            TestStack.Route(
                name: "mediawiki-batches", mockPath: MockService.mediawiki.path + "?action=query&generator=allpages&gaplimit=10&cllimit=4",
                scheme: .cursorInBody(batches), items: JSONPath("query.pages") ?? .root),
            TestStack.Route(
                name: "roundup-auto", mockPath: MockService.roundup.path + "?@fields=title&@page_size=\(size)", scheme: unused,
                configure: auto("data.collection")),
        ]
    }

    @Test("auto with items named walks MediaWiki's continue and Roundup's data.@links.next array to the end (real20 F1)",
          arguments: [("mediawiki-auto", "auto->cursor"), ("roundup-auto", "auto->next-url")])
    func autoWalksToTheEnd(route: String, scheme: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(route) \(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(route) \(total)")
                #expect(requests == Habits.pages(total), "\(route) \(total)")
                // A first page that names no next page (one page in all) is the whole list: single-page, as before.
                #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? scheme : "auto->single-page"), "\(route) \(total)")
            }
        }
    }

    @Test("cursorObjectPath: every member of MediaWiki's continue goes back on the first request; a member gone is not sent again (F2)")
    func everyMemberSentBack() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            // Batches of 10 pages, their props 4 pages at a time: 4+4+2, 4+4+2, 4+1.
            let (merged, requests) = try await Habits.merged(stack, "mediawiki-batches", total: 25)
            #expect(merged.status == 200, "\(merged.text)")
            #expect(merged.body == MockDataset.mergedJSON(total: 25))
            #expect(requests == 8)
            let targets = stack.mock.log.requests.map(\.target)
            // Within a batch both members go back (clcontinue beside the batch's gapcontinue); the next batch's first
            // request has no clcontinue (the stale one is a badcontinue error).
            #expect(targets.contains { $0.contains("gapcontinue=Item_11") && $0.contains("clcontinue=15%7CCat") }, "\(targets)")
            #expect(targets.contains { $0.contains("gapcontinue=Item_21") && !$0.contains("clcontinue") }, "\(targets)")
        }
    }
}
