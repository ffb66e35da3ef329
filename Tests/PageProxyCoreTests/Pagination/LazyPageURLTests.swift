import Synchronization
import Testing

@testable import PageProxyCore

/// Pages known ahead are built as the window reaches them (issue 13: the first item must not wait for every URL of
/// the walk), with the same guards as before.
@Suite struct LazyPageURLTests {
    /// GitHub-style pages: each says `rel="last"` is page `last`; page N holds item N.
    static func github(last: Int) -> FakeTransport {
        FakeTransport { url throws(UpstreamError) in
            let page = url.integerQueryValue("page") ?? 1
            let link = "<http://api.test/items?page=\(page + 1)>; rel=\"next\", <http://api.test/items?page=\(last)>; rel=\"last\""
            return .json("[\(page)]", headers: page < last ? [("Link", link)] : [])
        }
    }

    @Test("the first page of a 100,000-page walk is handed out with only the window's URLs built")
    func theFirstPageWaitsForTheWindowOnly() async throws {
        let walker = PageWalker.make(.linkHeader(.init()), transport: Self.github(last: 100_000)) { options in
            options.concurrency = 4
            options.maxPages = 1_000_000
        }
        var taken = 0
        try await walker.walk { page in
            taken += 1
            #expect(page.itemBytes == [Array(String(taken).utf8)])
            if taken == 1 { #expect(walker.builtURLCount <= 1 + 4 + 1, "built \(walker.builtURLCount) URLs") }
            // Taking more pages builds more, a window's worth ahead at a time, in order.
            return taken == 50 ? .stop : .takeNext
        }
        #expect(taken == 50)
        #expect(walker.builtURLCount <= 50 + 4 + 1)
    }

    @Test("a whole walk built lazily gives every page once, in order")
    func aLazyWalkIsWhole() async throws {
        let transport = Self.github(last: 30)
        let walker = PageWalker.make(.linkHeader(.init()), transport: transport) { $0.concurrency = 3 }
        let items = try await walker.pages().flatMap { $0.itemBytes.map { String(decoding: $0, as: UTF8.self) } }
        #expect(items == (1...30).map(String.init))
        #expect(Set(transport.requestedURLs).count == 30)
        #expect(walker.builtURLCount == 30)
    }

    /// Numbered pages from a template whose parameter is already `p=3`: page 3 is the first page again.
    struct CollidingStrategy: PaginationStrategy {
        var valuePaths: [JSONPath] { [] }
        func firstPage(from base: PageURL) -> PageURL { base }
        func next(after page: Page) throws(PaginationError) -> NextPages {
            .all(NumberedPages(template: page.url, parameter: "p", first: 1, through: 6))
        }
    }

    @Test("a numbered page that repeats a URL of the walk still ends it with a loop error, when the window reaches it")
    func aRepeatedNumberedPageIsStillALoop() async throws {
        let transport = FakeTransport { url throws(UpstreamError) in .json("[\(url.queryValue("p") ?? "0")]") }
        let walker = PageWalker(base: PageURL(string: "http://api.test/items?p=3")!, strategy: CollidingStrategy(), options: {
            var options = PageWalker.Options()
            options.concurrency = 1
            return options
        }()) { url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url), timeout: .seconds(5), maxBodyBytes: 1 << 20)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
        var pages = 0
        do {
            _ = try await walker.pages { _ in pages += 1 }
            Issue.record("expected a loop error")
        } catch {
            guard case .loop(_, let url) = error else { Issue.record("got \(error)"); return }
            #expect(url.description == "http://api.test/items?p=3")
        }
        // The first page, then p=1 and p=2; p=3 is the first page's URL again.
        #expect(pages == 3)
        #expect(!transport.requestedURLs.contains { $0.hasSuffix("p=4") })
    }
}
