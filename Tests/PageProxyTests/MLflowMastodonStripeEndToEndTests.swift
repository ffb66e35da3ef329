import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// MLflow's tracking server, Mastodon and localstripe as scripts/real-upstreams found them (branch real12), copied into
/// the mock and walked end to end: AIP-158 page tokens with `{}` for no items, `Link` keysets by `max_id` with a full
/// last page that links on to `[]` and an ISO 8601 `X-RateLimit-Reset`, and Stripe's list with `has_more` after the
/// items.
@Suite struct MLflowMastodonStripeEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        let mlflow = PaginationScheme.CursorInBody(
            cursorPath: JSONPath("next_page_token") ?? .root, cursorParameter: "page_token", sizeParameter: "max_results", pageSize: size)
        let mastodon = PaginationScheme.LinkHeader(sizeParameter: "limit", pageSize: size)
        return [
            TestStack.Route(name: "mlflow", mockPath: "/mlflow/items", scheme: .cursorInBody(mlflow), items: JSONPath("experiments") ?? .root),
            TestStack.Route(name: "mlflow-auto", mockPath: "/mlflow/items?max_results=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "mastodon", mockPath: "/mastodon/items", scheme: .linkHeader(mastodon)),
            TestStack.Route(name: "mastodon-auto", mockPath: "/mastodon/items?limit=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "mastodon-exhausted", mockPath: "/mastodon/items?limit=\(size)&mock_remaining=0", scheme: .linkHeader(mastodon)) {
                $0.ttl = .zero
                $0.totalTimeout = .seconds(2)
            },
            TestStack.Route(name: "localstripe", mockPath: "/localstripe/items", scheme: .hasMore(.init(pageSize: size)), items: JSONPath("data") ?? .root),
            TestStack.Route(name: "localstripe-auto", mockPath: "/localstripe/items?limit=\(size)", scheme: unused, configure: auto),
            // Slack answers a bad argument with a 200 and {"ok":false,"error":"invalid_arguments"}.
            TestStack.Route(
                name: "slack-bad-limit", mockPath: "/slack/items?limit=abc", scheme: .cursorInBody(.init(pageSize: size)),
                items: JSONPath("members") ?? .root),
        ]
    }

    @Test("MLflow: next_page_token sent back as page_token until it is absent (explicit and auto); `{}` is an empty answer",
          arguments: ["mlflow", "mlflow-auto"])
    func mlflowPageTokens(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
                if route == "mlflow-auto" { #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->cursor" : "auto->single-page")) }
                stack.mock.log.reset()
                let ndjson = try await stack.get("/\(route)?mock_total=\(total)&_format=ndjson")
                #expect(ndjson.body == MockDataset.ndjson(total: total))
            }
            // Nothing matches: MLflow answers `{}`, an empty list (before real12: 502 upstream_invalid_json "no items
            // at path 'experiments'"; under auto, before loose13: 502 pagination_not_detected).
            let (empty, requests) = try await Habits.merged(stack, route, total: 0)
            #expect(requests == 1)
            #expect(empty.status == 200, "\(empty.text)")
            #expect(empty.text == "[]")
            if route == "mlflow-auto" { #expect(empty.header("PageProxy-Scheme") == "auto->single-page") }
            let ndjson = try await stack.get("/\(route)?mock_total=0&_format=ndjson")
            #expect(ndjson.status == 200)
            #expect(ndjson.body.isEmpty)
        }
    }

    @Test("an object with members the walk does not read is not an empty page: Slack's 200 {\"ok\":false} stays a 502")
    func slackFailureIsNoEmptyPage() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await stack.get("/slack-bad-limit?mock_total=25")
            #expect(response.status == 502, "\(response.text)")
            #expect(response.text.contains(#""code":"upstream_invalid_json""#))
            #expect(response.text.contains("no items at path 'members'"))
        }
    }

    @Test("Mastodon: Link max_id keysets; a full last page links on to an empty page, which ends the walk (explicit and auto)",
          arguments: ["mastodon", "mastodon-auto"])
    func mastodonKeysets(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25, 30] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                // A full page always links on: 10 and 30 items cost the empty page after them too.
                #expect(requests == total / Self.size + 1, "\(total)")
                if route == "mastodon-auto" {
                    #expect(merged.header("PageProxy-Scheme") == (total >= Self.size ? "auto->link-header" : "auto->single-page"), "\(total)")
                }
            }
            // private, no-store: the same request walks again.
            let (_, again) = try await Habits.merged(stack, route, total: 25)
            #expect(again == 3)
        }
    }

    @Test("Mastodon: X-RateLimit-Remaining 0 with an ISO 8601 reset holds the origin: a walk that cannot wait that long is a 503, and page 2 is never sent")
    func mastodonExhaustedWithISOReset() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await stack.get("/mastodon-exhausted?mock_total=25")
            // Before real12 the reset was not read: page 2 and 3 were asked for at once, into a 429 on a real server.
            #expect(response.status == 503, "\(response.text)")
            #expect(response.text.contains(#""code":"upstream_rate_limited""#))
            let retryAfter = try #require(response.header("Retry-After").flatMap { Int($0) })
            #expect((60...361).contains(retryAfter))
            #expect(stack.mock.log.count == 1)
        }
    }

    @Test("probe on localstripe names the next page (starting_after the last id), not \"none on this page\"")
    func probeNamesTheNextPage() async throws {
        try await TestStack.run { stack in
            let outcome = try await runPageProxy(["probe", "http://127.0.0.1:\(stack.mockPort)/localstripe/items?limit=10&mock_total=25"])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.output.contains("scheme   has-more (from body \"has_more\")"), "\(outcome.output)")
            #expect(outcome.output.contains("next     starting_after=10"), "\(outcome.output)")
            #expect(outcome.output.contains("total    25 (total_count)"), "\(outcome.output)")
        }
    }

    @Test("localstripe: has_more after the items, and total_count; starting_after the last item's id (explicit and auto)",
          arguments: ["localstripe", "localstripe-auto"])
    func localstripeHasMore(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 10, 25] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total)")
                #expect(requests == Habits.pages(total), "\(total)")
                if route == "localstripe-auto" {
                    #expect(merged.header("PageProxy-Scheme") == "auto->has-more")
                    if total > 0 { #expect(merged.header("PageProxy-Total") == String(total), "\(total)") }
                }
            }
        }
    }
}
