import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// `scheme: "auto"` against every wire format of the mock: the detected walk gives the ground truth, page 1 is
/// fetched once, and the answer says what was detected.
@Suite struct AutoSchemeTests {
    /// Each mock service with `scheme: "auto"` and nothing else said.
    static let routes = MockService.allCases.map { service in
        TestStack.Route(name: service.rawValue, mockPath: service.path, scheme: .linkHeader(.init())) { route in
            route.pagination = .auto(itemsPath: nil)
        }
    }

    /// The services whose first page tells how to walk them, with what `PageProxy-Scheme` and items path say.
    static let detectable: [(service: String, scheme: String, items: String)] = [
        ("github", "auto->link-header", "$"), ("gitlab", "auto->link-header", "$"), ("drf", "auto->next-url", "results"),
        ("drf-pages", "auto->next-url", "results"), ("jsonapi", "auto->next-url", "data"),
        ("slack", "auto->cursor", "members"), ("stripe", "auto->has-more", "data"),
    ]

    @Test("auto walks every detectable mock service to the ground truth, merged and NDJSON", arguments: detectable)
    func detectsAndWalks(service: String, scheme: String, items: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                // GitHub sends no Link header when there is one page: that page is the whole answer.
                let scheme = service == "github" && total <= SchemeRoutes.pageSize ? "auto->single-page" : scheme
                stack.mock.log.reset()
                let merged = try await stack.get("/\(service)?mock_total=\(total)")
                #expect(merged.status == 200, "\(service) \(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(service) \(total)")
                #expect(merged.header("PageProxy-Scheme") == scheme)
                #expect(merged.header("PageProxy-Items-Path") == items)
                // Page 1 was fetched once: one upstream request per page.
                #expect(String(stack.mock.log.count) == merged.header("PageProxy-Pages"), "\(service) \(total)")
                let streamed = try await stack.get("/\(service)?mock_total=\(total)&_format=ndjson")
                #expect(streamed.body == MockDataset.ndjson(total: total), "\(service) \(total)")
                #expect(streamed.header("PageProxy-Scheme") == scheme)
            }
        }
    }

    @Test("a stated total is shown in PageProxy-Total")
    func totalIsShown() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let drf = try await stack.get("/drf?mock_total=25")
            let jsonapi = try await stack.get("/jsonapi?mock_total=25")
            let github = try await stack.get("/github?mock_total=25")
            #expect(drf.header("PageProxy-Total") == "25")
            #expect(jsonapi.header("PageProxy-Total") == "25")
            #expect(github.header("PageProxy-Total") == nil)
        }
    }

    @Test("a root array with no next and no total is answered as one page, and says so")
    func singlePage() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await stack.get("/plain?mock_total=25")
            #expect(response.status == 200)
            #expect(response.header("PageProxy-Scheme") == "auto->single-page")
            #expect(response.header("PageProxy-Items") == String(SchemeRoutes.pageSize))
        }
    }

    @Test("a total larger than the page with no way to the next page is a 502 that says to name the scheme",
          arguments: ["wrapped", "offset"])
    func undetectableIsA502(service: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await stack.get("/\(service)?mock_total=25")
            #expect(response.status == 502)
            #expect(response.text.contains(#""code":"pagination_not_detected""#))
            #expect(response.text.contains("name the route's scheme"))
            #expect(stack.mock.log.count == 1)
        }
    }

    @Test("the route's own items path is used, and the request log names the detected scheme")
    func configuredItemsAndLog() async throws {
        let route = TestStack.Route(name: "slack", mockPath: "/slack/items", scheme: .linkHeader(.init())) { route in
            route.pagination = .auto(itemsPath: JSONPath("members"))
        }
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/slack?mock_total=25")
            #expect(response.body == MockDataset.mergedJSON(total: 25))
            try await poll("the request is logged", limit: .seconds(5)) {
                stack.logs.lines.contains { $0.contains(#""scheme":"auto->cursor""#) && $0.contains(#""items_path":"members""#) }
            }
        }
    }
}
