import Testing

@testable import PageProxyCore

/// A cursor is sent back as the page wrote it; zero, as a number or as Twitter's `next_cursor_str` `"0"`, is the end
/// (retest14: `1.5e3` looked respelled `1500.0` — the upstream had written `1500.0`; review19 R6: `"0"` was sent back).
@Suite struct CursorTextTests {
    private static func next(after body: String) throws -> NextPages {
        let path = JSONPath("next_cursor")!
        let scanned = try JSONScanner().scan(Array(body.utf8), itemsAt: JSONPath("ids")!, values: [path])
        let page = Page(
            number: 1, url: try #require(PageURL(string: "http://api.test/followers/ids")), status: .ok, headers: HTTPHeaders(),
            body: Array(body.utf8), items: scanned.items, values: scanned.values)
        return try CursorInBodyStrategy(options: .init(cursorPath: path, cursorParameter: "cursor", sizeParameter: nil)).next(after: page)
    }

    @Test(arguments: [("1.5e3", "1.5e3"), ("1500.0", "1500.0"), ("1489467234237774933", "1489467234237774933"), (#""abc""#, "abc")])
    func aCursorIsSentAsWritten(written: String, sent: String) throws {
        #expect(try Self.next(after: #"{"ids":[1],"next_cursor":\#(written)}"#) == .one(PageURL(string: "http://api.test/followers/ids?cursor=\(sent)")!))
    }

    @Test("zero ends the walk, written as a number or as the string \"0\"", arguments: ["0", "0.0", #""0""#, "null", #""""#])
    func zeroIsTheEnd(written: String) throws {
        #expect(try Self.next(after: #"{"ids":[1],"next_cursor":\#(written)}"#) == .none)
    }
}

/// A first page whose way on is null while a flag says more follow contradicts itself: auto refuses it, naming both,
/// rather than answering the first page as the whole list.
@Suite struct MoreDespiteNoWayOnTests {
    private static let url = PageURL(string: "http://api.test/items")!

    @Test(arguments: [#"{"results":[{"id":1}],"hasMore":true,"next":null}"#, #"{"data":[{"id":1}],"has_more":true,"next_cursor":""}"#,
                      #"{"values":[{"id":1}],"isLastPage":false,"next":null}"#])
    func aNullWayOnBesideMoreIsRefused(body: String) {
        do {
            let detected = try SchemeDetector.detect(.json(body), url: Self.url)
            Issue.record("expected notDetected, got \(detected.schemeName)")
        } catch {
            guard case .notDetected(_, let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.contains("names no next page") && reason.contains("more pages follow"), "\(reason)")
        }
    }

    @Test(arguments: [#"{"results":[{"id":1}],"hasMore":false,"next":null}"#, #"{"results":[{"id":1}],"next":null}"#])
    func aNullWayOnAloneIsTheLastPage(body: String) throws {
        #expect(try SchemeDetector.detect(.json(body), url: Self.url).schemeName == "next-url")
    }
}
