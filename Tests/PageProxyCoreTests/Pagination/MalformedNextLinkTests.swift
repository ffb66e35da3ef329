import Testing

@testable import PageProxyCore

/// review17 L6: a `Link` field whose `next` link-value is malformed was skipped by the tolerant parser, and the walk
/// ended at that page as complete.
@Suite struct MalformedNextLinkTests {
    private static func walk(link: String) async throws(PaginationError) -> [[UInt8]] {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            return .json("[{\"p\":\(page)}]", headers: page == 1 ? [("Link", link)] : [])
        }
        return try await PageWalker.items(.linkHeader(.init()), transport: transport)
    }

    @Test("a next relation the parser cannot read fails the walk (pagination_stuck), not a 200 with page 1",
          arguments: [#"<http://api.test/items?page=2> rel="next""#, "<http://api.test/items?page=2>; rel='next'"])
    func anUnreadableNextFails(link: String) async throws {
        await #expect(throws: PaginationError.self) { try await Self.walk(link: link) }
    }

    @Test("a Link with no next relation, whatever its URLs say, ends the walk as before")
    func noNextEnds() async throws {
        let items = try await Self.walk(link: #"<http://api.test/nextgen?page=1>; rel="first", <http://api.test/next?page=0>; rel="prev""#)
        #expect(items.count == 1)
    }
}
