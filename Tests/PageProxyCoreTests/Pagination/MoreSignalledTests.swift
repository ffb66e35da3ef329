import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on a first page that says more pages follow (attack7): what can be followed is walked to the
/// end, and what cannot is a `pagination_not_detected` error, never that page answered as the whole list.
@Suite struct MoreSignalledTests {
    private static let url = PageURL(string: "http://api.test/items")!

    private func detect(_ body: String, headers: [(String, String)] = []) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body, headers: headers), url: Self.url)
    }

    /// The items of an auto walk from `http://api.test/items`, with the URLs asked for.
    private func walk(_ transport: FakeTransport, base: String = "http://api.test/items") async throws -> [String] {
        let (walker, _) = try await AutoPagination.start(base: PageURL(string: base)!, itemsPath: nil, options: PageWalker.Options()) {
            url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url), timeout: .seconds(5), maxBodyBytes: 1 << 20)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
        return try await walker.pages().flatMap(\.itemBytes).map { String(decoding: $0, as: UTF8.self) }
    }

    private func notDetectedReason(_ body: String, headers: [(String, String)] = []) -> String? {
        do {
            _ = try detect(body, headers: headers)
            return nil
        } catch {
            guard case .notDetected(_, let reason) = error as? PaginationError else { return "\(error)" }
            return reason
        }
    }

    @Test("both messages of a page with more and no way on name every signal auto reads, Kinto's Next-Page among them (loose12)")
    func notDetectedNamesEverySignal() throws {
        let byTotal = try #require(notDetectedReason(#"{"count":30,"results":[{"id":1}]}"#))
        let byPageCount = try #require(notDetectedReason(#"[{"id":1}]"#, headers: [("X-Total-Pages", "3")]))
        for reason in [byTotal, byPageCount] {
            for signal in ["Link", "X-Next-Page", "Next-Page (a URL)", "X-Pagination (JSON)", "\"next\"", "\"has_more\"", "\"pages\"", "\"offset\""] {
                #expect(reason.contains(signal), "\(signal) missing from: \(reason)")
            }
            #expect(reason.hasSuffix("name the route's scheme in its pagination"))
        }
    }

    @Test("\"has_more\": \"true\" (a string) is Stripe's flag: the walk goes on after the last id, and stops at \"false\"")
    func hasMoreAsAString() async throws {
        #expect(try detect(#"{"has_more":"true","data":[{"id":1}]}"#).schemeName == "has-more")
        let transport = FakeTransport { url in
            let after = url.integerQueryValue("starting_after") ?? 0
            let more = after < 2 ? #""true""# : #""false""#
            return .json(#"{"has_more":\#(more),"data":[{"id":\#(after + 1)}]}"#)
        }
        #expect(try await walk(transport) == [#"{"id":1}"#, #"{"id":2}"#, #"{"id":3}"#])
    }

    @Test("a has_more that is neither true nor false is an error, on the first page and on a later one")
    func unreadableHasMore() async throws {
        #expect(notDetectedReason(#"{"has_more":"yes","data":[{"id":1}]}"#)?.contains("has_more") == true)
        let transport = FakeTransport { url in
            url.integerQueryValue("starting_after") == nil
                ? .json(#"{"has_more":true,"data":[{"id":1}]}"#) : .json(#"{"has_more":"maybe","data":[{"id":2}]}"#)
        }
        await #expect(throws: PaginationError.self) { try await self.walk(transport) }
    }

    @Test("a next link inside an object, at \"href\" or \"url\", is followed to the page whose next is null")
    func nextLinkInAnObject() async throws {
        for key in ["href", "url"] {
            let transport = FakeTransport { url in
                let page = url.integerQueryValue("page") ?? 1
                let next = page < 3 ? #"{"\#(key)":"http://api.test/items?page=\#(page + 1)"}"# : "null"
                return .json(#"{"next":\#(next),"results":[{"id":\#(page)}]}"#)
            }
            #expect(try await walk(transport) == [#"{"id":1}"#, #"{"id":2}"#, #"{"id":3}"#], "\(key)")
            #expect(transport.requestedURLs.count == 3)
        }
        #expect(try detect(#"{"pagination":{"next":{"url":"/items?page=2"}},"results":[{"id":1}]}"#).next == "/items?page=2")
    }

    @Test("a next object with no link in it, or two different ones, is an error naming it")
    func nextObjectWithoutALink() throws {
        #expect(notDetectedReason(#"{"next":{"page":2},"results":[{"id":1}]}"#)?.contains(#""next""#) == true)
        #expect(notDetectedReason(#"{"next":{"href":"/a?page=2","url":"/b?page=2"},"results":[{"id":1}]}"#)?.contains("two next links") == true)
        // A Link header walks the page: the body's two links are not asked about.
        #expect(try detect(#"{"next":{"href":"/a?page=2","url":"/b?page=2"},"results":[{"id":1}]}"#, headers: [("Link", #"</a?page=2>; rel="next""#)]).schemeName == "link-header")
        // The same link twice is one link.
        #expect(try detect(#"{"next":{"href":"/a?page=2","url":"/a?page=2"},"results":[{"id":1}]}"#).next == "/a?page=2")
        // So is the same link written relative and absolute (review12).
        #expect(try detect(#"{"next":{"href":"/a?page=2","url":"http://api.test/a?page=2"},"results":[{"id":1}]}"#).next != nil)
    }

    @Test("a page number or true at a next path says more follow: an error; Twitter's next_cursor 0 is a last page")
    func nextAsANumber() throws {
        #expect(notDetectedReason(#"{"next_page":2,"results":[{"id":1}]}"#)?.contains("next_page") == true)
        #expect(notDetectedReason(#"{"next":true,"results":[{"id":1}]}"#) != nil)
        #expect(try detect(#"{"next_cursor":0,"users":[{"id":1}]}"#).scheme == nil)
        #expect(try detect(#"{"next":false,"results":[{"id":1}]}"#).scheme == nil)
    }

    @Test("an X-Pagination header that is not JSON: whether more follow cannot be told, so an error")
    func nonJSONPaginationHeader() throws {
        let body = #"[{"id":1},{"id":2}]"#
        #expect(notDetectedReason(body, headers: [("X-Pagination", "page=1; pages=4")])?.contains("X-Pagination") == true)
        #expect(notDetectedReason(body, headers: [("X-Pagination", #"{"per_page":2}"#)]) != nil)
        // Another way on wins, as before.
        #expect(try detect(body, headers: [("X-Pagination", "page=1"), ("X-Next-Page", "2")]).schemeName == "next-page-header")
    }

    @Test("an X-Pagination header that says it is the last page, or states its total as TotalRecords, is one page (review12)")
    func paginationHeaderThatSaysLastPage() throws {
        let body = #"[{"id":1},{"id":2}]"#
        #expect(notDetectedReason(body, headers: [("X-Pagination", #"{"PageSize":2,"HasNext":false}"#)]) == nil)
        #expect(try detect(body, headers: [("X-Pagination", #"{"PageSize":2,"HasNext":false}"#)]).scheme == nil)
        #expect(notDetectedReason(body, headers: [("X-Pagination", #"{"PageSize":2,"HasNext":true}"#)]) != nil)
        #expect(try detect(body, headers: [("X-Pagination", #"{"TotalRecords":2,"PageSize":2}"#)]).total == 2)
    }

    @Test("Content-Range: a total past the page with no way on is an error; the page's own total is one page")
    func contentRangeTotal() throws {
        let body = #"[{"id":1},{"id":2}]"#
        for value in ["items 0-1/100", "0-1/100"] {
            #expect(notDetectedReason(body, headers: [("Content-Range", value)])?.contains("Content-Range") == true, "\(value)")
        }
        for value in ["items 0-1/2", "0-1/*", "bytes 0-1/100", "garbage"] {
            #expect(try detect(body, headers: [("Content-Range", value)]).scheme == nil, "\(value)")
        }
    }

    @Test("PostgREST: ?limit= and Content-Range's total walk every offset, and stop at the total")
    func contentRangeWithALimitIsWalked() async throws {
        let transport = FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            let items = (offset..<min(offset + 2, 5)).map { #"{"id":\#($0)}"# }.joined(separator: ",")
            return .json("[\(items)]", headers: [("Content-Range", "\(offset)-\(min(offset + 2, 5) - 1)/5")])
        }
        let items = try await walk(transport, base: "http://api.test/items?limit=2")
        #expect(items == (0..<5).map { #"{"id":\#($0)}"# })
        #expect(transport.requestedURLs.count == 3)
    }
}
