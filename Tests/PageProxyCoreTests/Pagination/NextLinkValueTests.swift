import Testing

@testable import PageProxyCore

/// attack11 L5: a `next-url` route's next link that is neither a string nor null (a number, an object, an array, a
/// boolean) is no way on and no end either: the walk fails at that page, where it used to end as complete (a 200 with
/// the items so far). Null, absent, an empty string and `false` stay the last page.
@Suite struct NextLinkValueTests {
    private static func walk(next value: String) async throws(PaginationError) -> Int {
        let transport = FakeTransport { url in
            let page = url.queryValue("page").flatMap { Int($0) } ?? 1
            let next = page == 1 ? #""http://api.test/items?page=2""# : value
            return .json(#"{"results": [{"n": \#(page)}], "next": \#(next)}"#)
        }
        let walker = PageWalker.make(.nextURLInBody(.init()), transport: transport) {
            $0.itemsPath = JSONPath(components: [.key("results")])
        }
        return try await walker.pages().count
    }

    @Test("a next link that is a number, an object, an array or a boolean fails the walk", arguments: [
        ("5", "the number 5"), (#"{"a":1}"#, "an object"), (#"["x"]"#, "an array"), ("true", "true"),
    ])
    func nonStringNextLinkFails(value: String, kind: String) async {
        do {
            let pages = try await Self.walk(next: value)
            Issue.record("\(value): the walk ended with \(pages) pages")
        } catch {
            guard case .cannotContinue(let page, let reason) = error else {
                Issue.record("\(value): \(error)")
                return
            }
            #expect(page == 2)
            #expect(reason.contains("\"next\" is \(kind)"), "\(reason)")
            #expect(error.code == "pagination_stuck")
        }
    }

    @Test("null, an empty string and false end the walk (review12: auto-detection reads false as the end too)", arguments: ["null", #""""#, "false"])
    func endOfList(value: String) async throws {
        #expect(try await Self.walk(next: value) == 2)
    }
}
