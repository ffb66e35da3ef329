import Testing

@testable import PageProxyCore

/// Splicing a page's items into a merged answer: one copy for a compact run, item by item otherwise; the bytes are
/// the same either way.
@Suite struct PageSplicingTests {
    static func page(_ body: String, truncatedTo count: Int? = nil) throws -> Page {
        let bytes = Array(body.utf8)
        var page = Page(
            number: 1, url: PageURL(string: "http://api.test/items")!, status: .ok, headers: HTTPHeaders(), body: bytes,
            items: try JSONScanner().scan(bytes, itemsAt: .root).items, values: [:])
        if let count { page.truncateItems(to: count) }
        return page
    }

    @Test(arguments: [
        #"[{"a":1},{"b":[2,3]},"x,y",4]"#, #"[ {"a" : 1}, {"b":2} ]"#, #"[{"a":1} ,{"b":2}]"#, #"[{"a":1},{"b": 2},3]"#, "[]", "[7]",
        #"[1,"2",[3],{"4":4}]"#,
    ])
    func mergedSplicingIsTheItemsJoinedByCommas(body: String) throws {
        let page = try Self.page(body)
        var output: [UInt8] = Array("prefix".utf8)
        page.appendItems(to: &output, separator: [UInt8(ascii: ",")])
        #expect(output == Array("prefix".utf8) + Array(page.itemBytes.joined(separator: [UInt8(ascii: ",")])))
    }

    @Test(arguments: [
        #"[{"a":1},{"b":[2,3]},"x,y",4]"#, #"[ {"a" : 1}, {"b":2} ]"#, #"[{"a":1} ,{"b":2}]"#, #"[{"a":1},{"b": 2},3]"#, "[]", "[7]",
        #"[1,"2",[3],{"4":4}]"#, #"["a\nb",{"c":"d,e"}]"#,
    ])
    func ndjsonSplicingIsEachItemOnItsLine(body: String) throws {
        let page = try Self.page(body)
        var output: [UInt8] = Array("prefix\n".utf8)
        page.appendItems(to: &output, suffix: [UInt8(ascii: "\n")])
        #expect(output == Array("prefix\n".utf8) + page.itemBytes.flatMap { $0 + [UInt8(ascii: "\n")] })
    }

    /// The run a merged answer sends uncopied: from the first item to the last, only when every item is compact and
    /// one `,` alone lies between each two (the first item's and the last's cases included).
    @Test(arguments: [
        (#"[{"a":1},{"b":[2,3]},"x,y",4]"#, true), ("[7]", true), ("[]", false), (#"[{"a": 1},2]"#, false), (#"[1,{"b": 2}]"#, false),
        ("[1 ,2]", false), ("[1, 2]", false), ("[1,2 ]", true),
    ])
    func theCommaRunIsFoundOnlyWhenEveryItemIsCompactAndJoinedByOneComma(body: String, isRun: Bool) throws {
        let page = try Self.page(body)
        let run = page.commaSeparatedItems
        #expect((run != nil) == isRun)
        if let run { #expect(Array(page.body[run]) == Array(page.itemBytes.joined(separator: [UInt8(ascii: ",")]))) }
    }

    @Test func aTruncatedPageSplicesOnlyTheItemsKept() throws {
        let page = try Self.page(#"[{"a":1},{"b":2},{"c":3}]"#, truncatedTo: 2)
        var output: [UInt8] = []
        page.appendItems(to: &output, separator: [UInt8(ascii: ",")])
        #expect(output == Array(#"{"a":1},{"b":2}"#.utf8))
        var lines: [UInt8] = []
        page.appendItems(to: &lines, suffix: [UInt8(ascii: "\n")])
        #expect(lines == Array("{\"a\":1}\n{\"b\":2}\n".utf8))
    }
}
