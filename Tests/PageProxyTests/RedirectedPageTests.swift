import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// What a page reached through a redirect tells: where its relative links point, and nothing of the credentials sent.
@Suite struct RedirectedPageTests {
    /// The Eve route `name`, its upstream behind the mock's `/moved/` redirect.
    private static func moved(_ name: String) -> [TestStack.Route] {
        EveTastypieDatasetteEndToEndTests.routes.filter { $0.name == name }.map { route in
            var moved = route
            moved.mockPath = String(MockUpstream.movedPrefix.dropLast()) + route.mockPath
            return moved
        }
    }

    @Test("a redirect to another origin whose Location carries the route's token, percent-encoded: the 502 shows neither spelling (attack14 M5)")
    func foreignRedirectHidesTheSentToken() async throws {
        var secret = SchemeRoutes.all[8]
        secret.name = "secret"
        secret.configure = { $0.headers = [(name: "Authorization", value: "Bearer s3cr3t/V+A=LUE")] }
        try await TestStack.run(routes: [secret]) { stack in
            for explain in ["", "&_explain=1"] {
                let response = try await stack.get("/secret?mock_leak_to=127.0.0.2:9" + explain)
                #expect(response.text.contains("foreign_redirect"), "\(response.text)")
                #expect(response.text.contains("127.0.0.2:9/?x=REDACTED"), "\(response.text)")
                #expect(!response.text.contains("s3cr3t"), "\(response.text)")
            }
        }
    }

    @Test("the same for a key in the route's own query, whichever case the upstream writes its escapes in (review19 B3)")
    func foreignRedirectHidesTheRoutesQueryKey() async throws {
        var secret = SchemeRoutes.all[8]
        secret.name = "secret"
        secret.mockPath += "?api_key=k3y/V%2BA%3DLUE"
        try await TestStack.run(routes: [secret]) { stack in
            let response = try await stack.get("/secret?mock_leak_to=127.0.0.2:9")
            #expect(response.text.contains("foreign_redirect"), "\(response.text)")
            #expect(!response.text.contains("k3y"), "\(response.text)")
        }
        #expect(CredentialRedaction.redactText("x=k3y%2fV", secrets: CredentialRedaction.secrets(in: HTTPHeaders(), query: "api_key=k3y/V")) == "x=REDACTED")
    }

    @Test("relative next links on pages reached through a redirect resolve against the URL that answered: one redirect, not one a page (attack14 M3)",
          arguments: ["eve-next", "eve-auto"])
    func relativeLinksResolveAgainstTheRedirectTarget(route: String) async throws {
        let moved = Self.moved(route)
        try await TestStack.run(routes: moved) { stack in
            let (merged, requests) = try await RealHabitsEndToEndTests.merged(stack, route, total: 35)
            #expect(merged.status == 200, "\(merged.text)")
            #expect(merged.body == RealHabitsEndToEndTests.expectedMerged(35))
            let targets = stack.mock.log.requests.map(\.target)
            // Eve's `items?page=2` is relative to /eve/items, where /moved/eve/items sent the first request.
            #expect(targets.filter { $0.hasPrefix(MockUpstream.movedPrefix) }.count == 1, "\(targets)")
            #expect(requests == 1 + RealHabitsEndToEndTests.pages(35), "\(targets)")
        }
    }

    @Test("a page read back from the cache resolves its relative links against the URL that answered it, as when it was fetched (attack14 M3)")
    func cachedRedirectedPageResolvesAlike() async throws {
        // Fresh for a day: the repeat expects every page from the cache however long a loaded machine takes.
        let moved = Self.moved("eve-next").map(\.freshForADay)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-moved-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(routes: moved, configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            let first = try await stack.get("/eve-next?mock_total=35")
            #expect(first.status == 200)
            stack.mock.log.reset()
            // NDJSON is never memoized: the walk reads every page from the cache, the links of page 1 included.
            let again = try await stack.get("/eve-next?mock_total=35&_format=ndjson")
            #expect(again.status == 200)
            #expect(stack.mock.log.count == 0, "\(stack.mock.log.requests.map(\.target))")
        }
    }

    @Test("the URL that answered is stored without the route's secret query values, and read back its links still resolve with them (review19 R4)")
    func storedAnsweredURLHasNoSecret() async throws {
        var moved = Self.moved("eve-next").map(\.freshForADay)  // the repeat expects every page from the cache
        moved[0].mockPath += (moved[0].mockPath.contains("?") ? "&" : "?") + "api_key=k3yQUERYVALUE"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-moved-key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(routes: moved, configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            let first = try await stack.get("/eve-next?mock_total=35")
            #expect(first.status == 200, "\(first.text.prefix(300))")
            #expect(first.body == RealHabitsEndToEndTests.expectedMerged(35), "\(first.text.prefix(300))")
            // Each page's own links echo the query (the upstream's bytes); the field PageProxy stores beside them does not.
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            let stored = files.compactMap { FileManager.default.contents(atPath: root + "/" + $0) }.map { String(decoding: $0, as: UTF8.self) }
            let fields = stored.compactMap { text in
                text.range(of: RedirectingTransport.answeredURLField).map { String(text[$0.upperBound...].prefix(160)) }
            }
            #expect(!fields.isEmpty)
            for field in fields {
                #expect(field.contains("api_key=REDACTED") && !field.contains("k3yQUERYVALUE"), "\(field)")
            }
            stack.mock.log.reset()
            let again = try await stack.get("/eve-next?mock_total=35&_format=ndjson")
            #expect(again.status == 200)
            #expect(stack.mock.log.count == 0, "\(stack.mock.log.requests.map(\.target))")
        }
    }
}
