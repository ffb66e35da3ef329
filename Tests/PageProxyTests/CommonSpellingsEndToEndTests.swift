import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `scheme: "auto"` on upstreams that say "more pages" in spellings of their own (review17 B1 and B2, attack14 M8),
/// copied into the mock and walked end to end: before auto14 each answered its first page as the whole list, with a
/// 200 (Spring Data's `Page`, Microsoft Graph's `@odata.nextLink`).
@Suite struct CommonSpellingsEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        return [
            TestStack.Route(name: "spring-auto", mockPath: "/spring/items?size=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "graph-auto", mockPath: "/graph/items?$top=\(size)", scheme: unused, configure: auto),
        ]
    }

    @Test("Spring Data's Page: numbered by page from the body's 0, every item once, the total from totalElements (before: the first page alone)")
    func springPage() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, "spring-auto", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total): \(merged.text)")
                #expect(requests == Habits.pages(total), "\(total)")
                #expect(merged.header("PageProxy-Scheme") == "auto->page-number", "\(total)")
                if total > Self.size { #expect(merged.header("PageProxy-Total") == String(total), "\(total)") }
            }
            // The second page is the upstream's page 1 (0-based), asked once (review17 B2: it was never asked).
            stack.mock.log.reset()
            _ = try await stack.get("/spring-auto?mock_total=25")
            let targets = stack.mock.log.requests.map(\.target)
            #expect(targets.filter { $0.hasSuffix("page=1") || $0.contains("page=1&") }.count == 1, "\(targets)")
        }
    }

    @Test("Microsoft Graph: the link at \"@odata.nextLink\" (one key, dot and all) followed to the end (before: the first page alone)")
    func graphNextLink() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, "graph-auto", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total): \(merged.text)")
                #expect(requests == Habits.pages(total), "\(total)")
                #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->next-url" : "auto->single-page"), "\(total)")
                #expect(merged.header("PageProxy-Items-Path") == "value", "\(total)")
            }
        }
    }
}
