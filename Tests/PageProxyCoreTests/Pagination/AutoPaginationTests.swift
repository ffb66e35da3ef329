import Testing

@testable import PageProxyCore

/// `AutoPagination`: detects from the first page, walks on with what it found, and fetches page 1 once.
@Suite struct AutoPaginationTests {
    private func start(_ transport: FakeTransport, itemsPath: JSONPath? = nil) async throws -> (PageWalker, DetectedPagination?) {
        let base = PageURL(string: "http://api.test/items")!
        return try await AutoPagination.start(base: base, itemsPath: itemsPath, options: PageWalker.Options()) { url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url), timeout: .seconds(5), maxBodyBytes: 1 << 20)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }

    private func items(_ walker: PageWalker) async throws -> [[UInt8]] {
        try await walker.pages().flatMap(\.itemBytes)
    }

    @Test("a next-url API is walked to its end with page 1 fetched once")
    func walksWithTheDetectedScheme() async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            let next = page < 3 ? #""http://api.test/items?page=\#(page + 1)""# : "null"
            return .json(#"{"count":6,"next":\#(next),"results":[{"id":\#(page * 2 - 1)},{"id":\#(page * 2)}]}"#)
        }
        let (walker, detected) = try await start(transport)
        #expect(detected?.schemeName == "next-url")
        #expect(try await items(walker) == (1...6).map { Array(#"{"id":\#($0)}"#.utf8) })
        // Pages 2 and 3 are asked side by side (the total numbers them): page 1 first, then both in either order.
        #expect(transport.requestedURLs.first == "http://api.test/items")
        #expect(transport.requestedURLs.sorted() == [
            "http://api.test/items", "http://api.test/items?page=2", "http://api.test/items?page=3",
        ])
    }

    @Test("a first page with a 4xx is not inspected: the walker reports it as for any route")
    func upstreamErrorGoesToTheWalker() async throws {
        let transport = FakeTransport { _ in UpstreamResponse(status: HTTPStatus(code: 401), headers: HTTPHeaders(), body: Array(#"{"message":"Bad credentials"}"#.utf8)) }
        let (walker, detected) = try await start(transport)
        #expect(detected == nil)
        await #expect(throws: PaginationError.self) { try await walker.pages() }
        #expect(transport.requestedURLs.count == 1)
    }

    @Test("a page with items and no next is the whole answer")
    func singlePage() async throws {
        let transport = FakeTransport { _ in .json(#"[{"id":1},{"id":2}]"#) }
        let (walker, detected) = try await start(transport)
        #expect(detected?.schemeName == "single-page")
        #expect(try await items(walker).count == 2)
        #expect(transport.requestedURLs.count == 1)
    }

    @Test("`{}` (MLflow's empty search, protobuf JSON's empty list) is a list of no items; an object with members but no items array still refuses (loose13)")
    func anEmptyObjectIsAnEmptyList() async throws {
        for body in ["{}", " { }\n", "\u{FEFF}{\r\n}"] {
            let transport = FakeTransport { _ in .json(body) }
            let (walker, detected) = try await start(transport)
            #expect(detected?.schemeName == "single-page", "\(body)")
            #expect(detected?.itemCount == 0)
            let pages = try await walker.pages()
            #expect(pages.count == 1 && pages[0].itemCount == 0, "\(body)")
            #expect(transport.requestedURLs.count == 1)
        }
        let withMembers = FakeTransport { _ in .json(#"{"error":"nothing here"}"#) }
        await #expect(throws: PaginationError.self) { try await start(withMembers) }
    }
}
