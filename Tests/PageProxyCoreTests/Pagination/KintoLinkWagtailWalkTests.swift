import Synchronization
import Testing

@testable import PageProxyCore

/// Kinto's `Next-Page` header (the next page's URL, not its number) and an upstream that answers the same page
/// again under a new URL (scripts/real-upstreams, branch real11).
@Suite struct KintoLinkWagtailWalkTests {
    /// Kinto: `{"data": [...]}`, the next page's absolute URL in `Next-Page` with a token that changes every time
    /// (a nonce), absent on the last page; `_token` here is the offset plus a counter.
    private static func kinto(total: Int, pageSize: Int = 10, nextPage: @escaping @Sendable (Int) -> String? = { _ in nil }) -> FakeTransport {
        let nonce = Counter()
        return FakeTransport { url in
            let offset = Int(url.queryValue("_token")?.split(separator: "-").first ?? "0") ?? 0
            let items = (offset..<min(total, offset + pageSize)).map { "{\"id\":\($0)}" }
            var headers: [(String, String)] = []
            if offset + pageSize < total {
                let next = nextPage(offset + pageSize) ?? "http://h/v1/records?_limit=\(pageSize)&_token=\(offset + pageSize)-\(nonce.next())"
                headers.append(("Next-Page", next))
            }
            return .json(#"{"data":[\#(items.joined(separator: ","))]}"#, headers: headers)
        }
    }

    private static let kintoScheme = PaginationScheme.nextPageHeader(
        .init(nextPageHeader: "Next-Page", totalPagesHeader: nil, sizeParameter: "_limit", pageSize: 10))

    @Test("next-page-header follows a header that names the next page by its URL (absolute, a path, a query)",
          arguments: ["absolute", "path", "query"])
    func nextPageURL(form: String) async throws {
        let transport = Self.kinto(total: 35) { offset in
            switch form {
            case "path": "/v1/records?_limit=10&_token=\(offset)-x"
            case "query": "?_limit=10&_token=\(offset)-y"
            default: nil
            }
        }
        let walker = PageWalker.make(Self.kintoScheme, transport: transport, base: "http://h/v1/records") { $0.itemsPath = JSONPath("data") ?? .root }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<35).map { "{\"id\":\($0)}" })
        #expect(transport.requestedURLs.count == 4)
        #expect(transport.requestedURLs.dropFirst().allSatisfy { $0.hasPrefix("http://h/v1/records?_limit=10&_token=") })
    }

    @Test("a next-page header that is neither a number nor a URL is still an invalid next link")
    func nextPageNeitherNumberNorURL() async throws {
        let transport = Self.kinto(total: 35) { _ in "eyJvZmZzZXQiOjEwfQ==" }
        let walker = PageWalker.make(Self.kintoScheme, transport: transport, base: "http://h/v1/records") { $0.itemsPath = JSONPath("data") ?? .root }
        await #expect(throws: PaginationError.self) { _ = try await walker.pages() }
        #expect(transport.requestedURLs.count == 1)
    }

    @Test("auto: a Next-Page header holding a URL is next-page-header on it; a number there is not this habit")
    func detectsNextPageURL() throws {
        let url = try #require(PageURL(string: "http://h/v1/records?_limit=10"))
        let body = #"{"data":[{"id":1},{"id":2}]}"#
        let detected = try SchemeDetector.detect(.json(body, headers: [("Next-Page", "http://h/v1/records?_limit=10&_token=abc")]), url: url)
        #expect(detected.scheme == .nextPageHeader(.init(nextPageHeader: "Next-Page", totalPagesHeader: nil)))
        #expect(detected.itemsPath == JSONPath("data"))
        #expect(detected.next == "http://h/v1/records?_limit=10&_token=abc")
        let numbered = try SchemeDetector.detect(.json(body, headers: [("Next-Page", "2")]), url: url)
        #expect(numbered.scheme == nil)
        // The last page has no Next-Page: one page, the whole answer.
        #expect(try SchemeDetector.detect(.json(body), url: url).scheme == nil)
    }

    /// drf-link-header-pagination's limit-offset links on a bare array: `next` at `offset+limit`, `last` at the last
    /// page's offset, with `lastLimit` in the last link (another value: not the same numbering).
    private static func linkOffsets(total: Int, lastLimit: Int = 10) -> FakeTransport {
        FakeTransport { url in
            let offset = Int(url.queryValue("offset") ?? "0") ?? 0
            let items = (offset..<min(total, offset + 10)).map { "{\"id\":\($0)}" }
            var links: [String] = []
            if offset + 10 < total { links.append(#"<http://api.test/items?limit=10&offset=\#(offset + 10)>; rel="next""#) }
            links.append(#"<http://api.test/items?limit=10>; rel="first""#)
            if offset + 10 < total { links.append(#"<http://api.test/items?limit=\#(lastLimit)&offset=\#((total - 1) / 10 * 10)>; rel="last""#) }
            return .json("[" + items.joined(separator: ",") + "]", headers: [("Link", links.joined(separator: ", "))])
        }
    }

    @Test("link-header: next and last numbered by a plain offset fan out from the first page; a last link of another size does not")
    func linkOffsetFansOut() async throws {
        let transport = Self.linkOffsets(total: 95)
        let items = try await PageWalker.items(.linkHeader(.init()), transport: transport) { $0.concurrency = 4 }
        #expect(items.count == 95)
        #expect(transport.requestedURLs.count == 10)
        #expect(transport.peakInFlight > 1)
        // `last` at limit=20: not the next link's numbering, so the walk follows next, one page after another.
        let other = Self.linkOffsets(total: 95, lastLimit: 20)
        let followed = try await PageWalker.items(.linkHeader(.init()), transport: other) { $0.concurrency = 4 }
        #expect(followed.count == 95)
        #expect(other.requestedURLs.count == 10)
        #expect(other.peakInFlight == 1)
    }

    /// An upstream whose next link is always new (a growing `again=`) but whose page 2 it answers for every page
    /// after the first: the walk ignored, as Eve's hrefs sent back as a cursor were (real10).
    private static func ignoringItsLinks(total: Int = 100) -> FakeTransport {
        FakeTransport { url in
            let again = Int(url.queryValue("again") ?? "0") ?? 0
            let page = again == 0 && url.queryValue("page") == nil ? 1 : 2
            return .json(#"{"next":"http://h/a?page=2&again=\#(again + 1)","results":\#(FakePages.body(page: page, pageSize: 10, total: total))}"#)
        }
    }

    @Test("next links whose pages hold the items of the page before (new URLs, the same page) end the walk with repeatedPage after the bound")
    func repeatedPageEndsTheWalk() async throws {
        let transport = Self.ignoringItsLinks()
        let walker = PageWalker.make(.nextURLInBody(.init()), transport: transport, base: "http://h/a") { $0.itemsPath = JSONPath("results") ?? .root }
        do {
            _ = try await walker.pages()
            Issue.record("the walk did not fail")
        } catch {
            guard case .repeatedPage(let page, let url) = error else { Issue.record("got \(error)"); return }
            // Each link is new (`again` renumbered), as constant data's would be: the bound, not the first repeat, ends it.
            #expect(page == RepeatedPageGuard.maxRepeatsInRow + 3)
            #expect(url.queryValue("again") == "\(RepeatedPageGuard.maxRepeatsInRow + 2)")
            #expect(error.code == "pagination_repeated_page")
        }
        // Pages 1, 2 and 2 again under each new link until the bound: not a thousand requests up to maxPages.
        #expect(transport.requestedURLs.count == RepeatedPageGuard.maxRepeatsInRow + 3)
    }

    @Test("empty pages in a row and pages whose ends differ are not a repeat; pages known ahead are compared only with the first")
    func guardSparesHonestPages() async throws {
        // A cursor walk that answers two empty pages before its end (some search APIs do): not a repeat.
        let cursors = FakeTransport { url in
            switch url.queryValue("cursor") {
            case nil: .json(#"{"next_cursor":"a","items":[{"id":1}]}"#)
            case "a": .json(#"{"next_cursor":"b","items":[]}"#)
            case "b": .json(#"{"next_cursor":"c","items":[]}"#)
            default: .json(#"{"next_cursor":null,"items":[{"id":2}]}"#)
            }
        }
        var cursor = PaginationScheme.CursorInBody()
        cursor.cursorPath = JSONPath("next_cursor") ?? .root
        let items = try await PageWalker.make(.cursorInBody(cursor), transport: cursors, base: "http://h/a") { $0.itemsPath = JSONPath("items") ?? .root }
            .pages().flatMap(\.itemBytes)
        #expect(items.count == 2)
        #expect(cursors.requestedURLs.count == 4)
        // Numbered pages (a total) that all hold the same items: not this guard's business, but the second page that
        // holds the first's items ends the walk (real14, `IgnoredPageNumber`: an upstream that ignores the offset).
        let same = FakeTransport { _ in .json(#"{"count":30,"results":[{"id":1}]}"#) }
        var offset = PaginationScheme.Offset(limit: 1)
        offset.totalItemsPath = JSONPath("count")
        do {
            _ = try await PageWalker.make(.offset(offset), transport: same, base: "http://h/a") { $0.itemsPath = JSONPath("results") ?? .root }
                .pages()
            Issue.record("expected pagination_stuck")
        } catch {
            #expect(error.code == "pagination_stuck")
        }
    }
}

/// A counter shared by an upstream's answers.
private final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
