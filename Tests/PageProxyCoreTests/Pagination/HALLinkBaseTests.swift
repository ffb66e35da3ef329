import Testing

@testable import PageProxyCore

/// Eve writes its HAL links relative to the API's root, not to the page: a resource nested under another
/// (`/api/people/5ab/invoices`) links to `people/5ab/invoices?page=2` (review10). Its `_links.self.href` names the page
/// the same way, which tells where the root is.
@Suite struct HALLinkBaseTests {
    private static func path(_ dotted: String) -> JSONPath {
        JSONPath(components: dotted.split(separator: ".").map { .key(String($0)) })
    }

    /// Three pages of a nested Eve resource at `/api/people/5ab/invoices`, linked as Eve links them; `next` as given.
    private static func nestedEve(next: @escaping @Sendable (Int) -> String) -> FakeTransport {
        FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            guard url.path == "/api/people/5ab/invoices" else { return UpstreamResponse(status: .notFound, headers: HTTPHeaders(), body: []) }
            let link = page < 3 ? #", "next": {"href": "\#(next(page + 1))"}"# : ""
            return .json(#"{"_items": [{"n": \#(page)}], "_links": {"self": {"href": "people/5ab/invoices?page=\#(page)"}\#(link)}}"#)
        }
    }

    private static func walk(_ transport: FakeTransport) async throws -> [String] {
        let scheme = PaginationScheme.nextURLInBody(.init(nextPath: path("_links.next.href")))
        let walker = PageWalker.make(scheme, transport: transport, base: "http://api.test/api/people/5ab/invoices") {
            $0.itemsPath = path("_items")
        }
        return try await walker.pages().flatMap(\.itemBytes).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a relative href resolves against the root its self link shows, not the page's directory")
    func nestedResourceLinksResolveAgainstTheRoot() async throws {
        let transport = Self.nestedEve { "people/5ab/invoices?page=\($0)" }
        let items = try await Self.walk(transport)
        #expect(items == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#], "\(items) \(transport.requestedURLs)")
        #expect(transport.requestedURLs.allSatisfy { $0.hasPrefix("http://api.test/api/people/5ab/invoices") })
    }

    @Test("links that are not relative paths resolve against the page as RFC 3986 says (a query alone, an absolute path)")
    func otherReferencesResolveAgainstThePage() async throws {
        #expect(try await Self.walk(Self.nestedEve { "?page=\($0)" }).count == 3)
        #expect(try await Self.walk(Self.nestedEve { "/api/people/5ab/invoices?page=\($0)" }).count == 3)
    }
}
