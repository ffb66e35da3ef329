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

    /// Pages of one item, 1 to 4, each with `link(page, more)` as its `Link` field (nothing when nil).
    private static func walkFour(link: @escaping @Sendable (Int, Bool) -> String?) async throws(PaginationError) -> [[UInt8]] {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            guard page <= 4 else { return .json("[{\"decoy\":\(page)}]") }
            return .json("[{\"p\":\(page)}]", headers: link(page, page < 4).map { [("Link", $0)] } ?? [])
        }
        return try await PageWalker.items(.linkHeader(.init()), transport: transport)
    }

    private static let fourPages = (1...4).map { Array("{\"p\":\($0)}".utf8) }

    @Test("attack22 item 1: a next anchored at another resource is not followed (the last page's alone ends the walk)")
    func anchoredNextIsNotFollowed() async throws {
        let items = try await Self.walkFour { page, more in
            let decoy = #"<http://api.test/items?page=9>; rel="next"; anchor="/other/items""#
            return more ? decoy + #", <http://api.test/items?page=\#(page + 1)>; rel="next""# : decoy
        }
        #expect(items == Self.fourPages)
    }

    @Test("attack22 item 1: a next anchored at this very page (empty, relative or absolute) is followed",
          arguments: ["", "#top", "QUERY", "http://api.test/itemsQUERY"])
    func anchorAtThisPageIsFollowed(anchor: String) async throws {
        let items = try await Self.walkFour { page, more in
            // The first page is asked at the base, with no page parameter.
            let here = anchor.replacing("QUERY", with: page == 1 ? "" : "?page=\(page)")
            return more ? #"<http://api.test/items?page=\#(page + 1)>; rel="next"; anchor="\#(here)""# : nil
        }
        #expect(items == Self.fourPages)
    }

    @Test("attack22 item 2: a last page whose prev says next in a title or a second rel ends the walk cleanly",
          arguments: [#"; title="rel=next""#, #"; rel="next""#, #"; title="a, <http://api.test/items?page=9>; rel=next""#])
    func quotedOrSecondRelIsNoNext(suffix: String) async throws {
        let items = try await Self.walkFour { page, more in
            let prev = page > 1 ? #"<http://api.test/items?page=\#(page - 1)>; rel="prev""# + suffix : nil
            let next = more ? #"<http://api.test/items?page=\#(page + 1)>; rel="next""# : nil
            return [prev, next].compactMap { $0 }.joined(separator: ", ")
        }
        #expect(items == Self.fourPages)
    }

    @Test("attack22 item 3: an unclosed < before the real next is skipped, and the next followed")
    func unclosedDecoyIsSkipped() async throws {
        let items = try await Self.walkFour { page, more in
            let decoy = #"<http://api.test/items?page=9; rel="prev""#
            return more ? decoy + #", <http://api.test/items?page=\#(page + 1)>; rel="next""# : decoy
        }
        #expect(items == Self.fourPages)
    }

    @Test("an unclosed < that names next, with no other next, is pagination_stuck, and nothing past it is asked")
    func unclosedNextFails() async throws {
        await #expect(throws: PaginationError.self) {
            try await Self.walkFour { page, _ in page == 2 ? #"<http://api.test/items?page=3; rel="next""# : #"<http://api.test/items?page=\#(page + 1)>; rel="next""# }
        }
    }
}
