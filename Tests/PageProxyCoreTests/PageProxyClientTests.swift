import Testing

@testable import PageProxyCore

/// The library API: pages and items as async sequences, usable without the server.
@Suite struct PageProxyClientTests {
    private struct Item: Decodable, Equatable, Sendable {
        let id: Int
    }

    private static let source: PaginatedSource = {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.totalPagesHeader = "X-Total-Pages"
        return PaginatedSource(url: PageURL(string: "http://api.test/items")!, scheme: .pageNumber(scheme), limits: WalkLimits(concurrency: 3))
    }()

    private static func transport(total: Int, failingPage: Int? = nil) -> FakeTransport {
        FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            if page == failingPage { return UpstreamResponse(status: .badGateway, headers: [:], body: []) }
            return .json(FakePages.body(page: page, pageSize: 10, total: total), headers: [("X-Total-Pages", String((total + 9) / 10))])
        }
    }

    @Test func itemsDecodeInUpstreamOrder() async throws {
        let client = PageProxyClient(transport: Self.transport(total: 95))
        var ids: [Int] = []
        for try await item in client.items(of: Self.source, as: Item.self) { ids.append(item.id) }
        #expect(ids == Array(0..<95))
    }

    @Test func rawItemsAreTheUpstreamBytes() async throws {
        let client = PageProxyClient(transport: Self.transport(total: 25))
        var items: [[UInt8]] = []
        for try await item in client.items(of: Self.source) { items.append(item) }
        #expect(items == FakePages.expected(total: 25))
    }

    @Test func pagesCarryTheirMetadata() async throws {
        let client = PageProxyClient(transport: Self.transport(total: 25))
        var pages: [(Int, Int, String?)] = []
        for try await page in client.pages(of: Self.source) { pages.append((page.number, page.itemCount, page.header("X-Total-Pages"))) }
        #expect(pages.map(\.0) == [1, 2, 3])
        #expect(pages.map(\.1) == [10, 10, 5])
        #expect(pages.allSatisfy { $0.2 == "3" })
    }

    @Test func firstPageErrorEndsTheSequenceWithThatError() async throws {
        let client = PageProxyClient(transport: Self.transport(total: 95, failingPage: 4))
        var seen = 0
        do {
            for try await _ in client.items(of: Self.source) { seen += 1 }
            Issue.record("expected an error")
        } catch {
            guard case .upstreamStatus(4, _, 502, _) = error else {
                Issue.record("got \(error)")
                return
            }
        }
        #expect(seen == 30)
    }
}
