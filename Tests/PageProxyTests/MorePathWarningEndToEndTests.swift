import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// retest19 F4: a `morePath` that names no flag on the pages (misspelt, or a member that is no boolean) walks as without
/// it, one request more, silently. The log says so once per route, not once per request; a right one says nothing.
@Suite struct MorePathWarningEndToEndTests {
    private static var routes: [TestStack.Route] {
        let zendesk = MockService.zendesk.path + "?page[size]=\(SchemeRoutes.pageSize)"
        let items = JSONPath("activities") ?? .root
        func route(_ name: String, more: String) -> TestStack.Route {
            var next = PaginationScheme.NextURLInBody(nextPath: JSONPath("links.next") ?? .root)
            next.morePath = JSONPath(more)
            return TestStack.Route(name: name, mockPath: zendesk, scheme: .nextURLInBody(next), items: items)
        }
        return [route("misspelt", more: "meta.hasmore"), route("not-a-flag", more: "meta.after_cursor"), route("right", more: "meta.has_more")]
    }

    private static func warnings(_ stack: TestStack, route: String) -> [String] {
        stack.logs.lines.filter { $0.contains("morePath") && $0.contains(#""route":"\#(route)""#) }
    }

    @Test("a misspelt morePath and one naming a cursor string: one warning each for several walks, items whole; a right one: none")
    func warnsOncePerRoute() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for route in ["misspelt", "not-a-flag", "right"] {
                for total in [10, 25, 25] {
                    let answer = try await stack.get("/\(route)?mock_total=\(total)")
                    #expect(answer.status == 200, "\(answer.text)")
                    #expect(answer.body == MockDataset.mergedJSON(total: total), "\(route) \(total)")
                    let ndjson = try await stack.get("/\(route)?mock_total=\(total)&_format=ndjson")
                    #expect(ndjson.body == MockDataset.ndjson(total: total), "\(route) \(total)")
                }
            }
            let misspelt = Self.warnings(stack, route: "misspelt")
            #expect(misspelt.count == 1, "\(misspelt)")
            #expect(misspelt.first?.contains(#""found":"absent""#) == true, "\(misspelt)")
            #expect(misspelt.first?.contains(#""more_path":"meta.hasmore""#) == true, "\(misspelt)")
            let notAFlag = Self.warnings(stack, route: "not-a-flag")
            #expect(notAFlag.count == 1, "\(notAFlag)")
            #expect(notAFlag.first?.contains("absent") == false, "\(notAFlag)")
            #expect(Self.warnings(stack, route: "right").isEmpty)
        }
    }
}
