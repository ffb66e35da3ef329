import Testing

@testable import PageProxyCore

/// Issue 14: a walk made numbered by `rel="last"` builds its page URLs, but still checks the next links that arrive.
@Suite struct NumberedWalkLinkTests {
    /// Three pages numbered `?page=N`; page 1 links `next` and `last` on the route's origin, later pages link `next`
    /// to `later(N + 1)`.
    private static func transport(laterNext: @escaping @Sendable (Int) -> String) -> FakeTransport {
        FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            let link = page == 1
                ? "<http://api.test/items?page=2>; rel=\"next\", <http://api.test/items?page=3>; rel=\"last\""
                : page < 3 ? "<\(laterNext(page + 1))>; rel=\"next\"" : ""
            return .json(FakePages.body(page: page, pageSize: 2, total: 6), headers: link.isEmpty ? [] : [("Link", link)])
        }
    }

    private static func walk(_ transport: FakeTransport) async throws(PaginationError) -> [[UInt8]] {
        let walker = PageWalker.make(.linkHeader(.init()), transport: transport) { $0.concurrency = 4 }
        return try await walker.pages().flatMap(\.itemBytes)
    }

    @Test("a next link to another origin on page 2 ends the walk with foreignOrigin")
    func foreignLinkOnALaterPageIsAnError() async throws {
        let transport = Self.transport { "http://evil.test/items?page=\($0)" }
        do {
            _ = try await Self.walk(transport)
            Issue.record("expected foreignOrigin")
        } catch {
            guard case .foreignOrigin(let page, let refused, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(page == 2)
            #expect(refused == "http://evil.test")
        }
        #expect(!transport.requestedURLs.contains { $0.contains("evil.test") })
    }

    @Test("a next link to another path on the origin (GitHub's /repositories/<id>/…) is fine, and not followed")
    func otherPathOnTheOriginIsFine() async throws {
        let transport = Self.transport { "http://api.test/repositories/42/items?page=\($0)" }
        #expect(try await Self.walk(transport) == FakePages.expected(total: 6))
        #expect(transport.requestedURLs.allSatisfy { $0.hasPrefix("http://api.test/items") })
    }
}
