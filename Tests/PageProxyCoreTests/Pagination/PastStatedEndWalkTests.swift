import Testing

@testable import PageProxyCore

/// review22 H2: a stated total lower than the truth on an upstream that caps the page size below the route's (PostgREST's
/// `db-max-rows` with an estimated count, JupyterHub's 200 under a route's `limit: 500`). The check page past the full
/// stated end holds items, which proves the total low: the pages after it are ordinary pages, whose failures fail the
/// walk and which count against every cap (before: each was another "check page", ending the walk quietly complete).
@Suite struct PastStatedEndWalkTests {
    /// 150 items at any offset, at most 20 a page whatever the limit asked, each page stating `count: 100`; the page at
    /// `failAt` answers 500.
    private static func capped(failAt: Int? = nil) -> FakeTransport {
        FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            if offset == failAt { return UpstreamResponse(status: HTTPStatus(code: 500), headers: HTTPHeaders(), body: []) }
            let ids = offset < 150 ? Array(offset..<min(150, offset + 20)) : []
            return .json("{\"count\":100,\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
    }

    private static let offset = PaginationScheme.offset(.init(limit: 50, totalItemsPath: JSONPath(components: [.key("count")])))

    private static func walker(_ transport: FakeTransport, _ configure: @escaping (inout PageWalker.Options) -> Void = { _ in }) -> PageWalker {
        PageWalker.make(Self.offset, transport: transport) {
            $0.itemsPath = JSONPath(components: [.key("results")])
            configure(&$0)
        }
    }

    @Test("no fault and no cap: every item once, the pages past the stated end stepped by what the upstream serves")
    func everyItemOnce() async throws {
        let transport = Self.capped()
        let items = try await Self.walker(transport).pages().flatMap(\.itemBytes)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<150).map { "{\"id\":\($0)}" })
        #expect(transport.requestedURLs.count == 8)
    }

    @Test("a page after the check page fails: the walk fails (before: a 200 with 120 of 150 items)")
    func aFailurePastTheCheckPageFailsTheWalk() async throws {
        let walker = Self.walker(Self.capped(failAt: 120))
        await #expect(throws: PaginationError.self) { _ = try await walker.pages() }
    }

    @Test("the route's maxPages met past the check page: tooManyPages (before: 120 items, complete)")
    func maxPagesPastTheCheckPageIsAnError() async throws {
        let walker = Self.walker(Self.capped()) { $0.maxPages = 6 }
        do {
            _ = try await walker.pages()
            Issue.record("the walk answered")
        } catch {
            guard case .tooManyPages(let limit) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(limit == 6)
        }
    }

    @Test("a client's page or item cap met past the check page: truncated (before: complete)", arguments: [true, false])
    func aClientCapPastTheCheckPageTruncates(byPages: Bool) async throws {
        let walker = Self.walker(Self.capped()) {
            if byPages { $0.pageLimit = 6 } else { $0.itemLimit = 120 }
        }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items.count == 120)
        #expect(walker.wasTruncated)
    }
}
