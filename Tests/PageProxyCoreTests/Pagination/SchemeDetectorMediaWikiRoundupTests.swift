import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on the first pages real20 read from MediaWiki and Roundup (F1: each answered as the whole list,
/// 100 of 1,000, with a 200), and OpenStack's links arrays.
@Suite struct SchemeDetectorMediaWikiRoundupTests {
    private func detect(_ body: String, headers: [(String, String)] = [], url: String = "http://api.test/items", items: String? = nil)
        throws -> DetectedPagination
    {
        try SchemeDetector.detect(.json(body, headers: headers), url: try #require(PageURL(string: url)), itemsPath: items.flatMap(JSONPath.init))
    }

    @Test("MediaWiki: a root continue object is a cursor object, every member sent back (F1, F2)")
    func mediaWikiContinue() throws {
        let body = #"{"batchcomplete": true, "continue": {"apcontinue": "Item_101", "continue": "-||"}, "query": {"allpages": [{"pageid": 1}]}}"#
        let detected = try detect(body, url: "http://w.test/api.php?action=query&list=allpages&aplimit=100", items: "query.allpages")
        var options = PaginationScheme.CursorInBody()
        options.cursorObjectPath = JSONPath("continue")
        options.sizeParameter = nil
        #expect(detected.scheme == .cursorInBody(options))
        #expect(detected.next == "apcontinue=Item_101&continue=-||")
        // The last batch has no continue: the page is the whole list, as before.
        let last = try detect(#"{"batchcomplete": true, "query": {"allpages": [{"pageid": 1}]}}"#, items: "query.allpages")
        #expect(last.scheme == nil)
    }

    @Test("Roundup: the next link in an array under data.@links.next is followed; @total_size and X-Count-Total are totals (F1)")
    func roundupLinksArray() throws {
        let next = "http://r.test/rest/data/issue?@page_size=1&@page_index=2"
        let body = #"{"data": {"collection": [{"id": "1"}], "@links": {"self": [{"rel": "self", "uri": "x"}], "#
            + #""next": [{"rel": "next", "uri": "\#(next)"}]}, "@total_size": 3}}"#
        let detected = try detect(body, url: "http://r.test/rest/data/issue?@page_size=1", items: "data.collection")
        guard case .nextURLInBody(let options)? = detected.scheme else {
            Issue.record("not next-url: \(String(describing: detected.scheme))")
            return
        }
        #expect(options.nextPath == JSONPath("data.@links.next.0.uri"))
        #expect(detected.next == next)
        #expect(detected.total == 3)
        // X-Count-Total alone states the total, and a page short of it with no way on is refused, never one page.
        let headerOnly = #"{"data": {"collection": [{"id": "1"}]}}"#
        #expect(throws: PaginationError.self) {
            try detect(headerOnly, headers: [("X-Count-Total", "3")], items: "data.collection")
        }
        #expect(try detect(headerOnly, headers: [("X-Count-Total", "1")], items: "data.collection").total == 1)
    }

    @Test("OpenStack: a links array with a next relation is refused, naming the next-url route to write, never one page")
    func openStackLinksArray() throws {
        let body = #"{"servers": [{"id": "a"}], "servers_links": [{"rel": "self", "href": "s"}, {"rel": "next", "href": "http://o.test/servers?marker=a"}]}"#
        do {
            _ = try detect(body, items: "servers")
            Issue.record("detected")
        } catch let error as PaginationError {
            guard case .notDetected(_, let reason) = error else { throw error }
            #expect(reason.contains(#""nextPath": "servers_links.1.href""#), "\(reason)")
        }
        // Without a next relation (the last page) it is the whole list.
        let last = #"{"servers": [{"id": "a"}], "servers_links": [{"rel": "self", "href": "s"}]}"#
        #expect(try detect(last, items: "servers").scheme == nil)
    }
}
