import Testing

@testable import PageProxyCore

/// review20 H3: a client's `?page=N` (a walk's first page past the list's first) short of the size asked, under a stated
/// total of items. Where the pages before it and its items by that size fall short of the total it cannot be the last
/// page: the upstream capped it, and numbers its pages by what it serves. Where they meet the total it is the short
/// last page or a cap: the next page tells, one request.
@Suite struct ClientPageNumberCapTests {
    private static func strategy() -> PageNumberStrategy {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 10
        options.totalItemsPath = JSONPath("total")
        return PageNumberStrategy(options: options)
    }

    /// The walk's `number`th page at `?page=current&per_page=20`, holding `items` items under a total of `total`.
    private static func page(_ current: Int, items: Int, total: Int, number: Int = 1) throws -> Page {
        let url = try #require(PageURL(string: "http://api.test/items?page=\(current)&per_page=20"))
        let list = (0..<items).map { "{\"id\":\($0)}" }.joined(separator: ",")
        let body = Array("{\"total\":\(total),\"items\":[\(list)]}".utf8)
        let scanned = try JSONScanner().scan(body, itemsAt: #require(JSONPath("items")), values: [#require(JSONPath("total"))])
        return Page(number: number, url: url, status: .ok, headers: HTTPHeaders(), body: body, items: scanned.items, values: scanned.values)
    }

    private static func numbers(_ next: NextPages) -> [String] {
        switch next {
        case .none: []
        case .one(let url): [url.description]
        case .all(let pages): pages.urls(prefix: 10).map(\.description)
        }
    }

    @Test("short of the total by the size asked: a cap, the rest numbered by what it served")
    func shortOfTheTotalIsACap() throws {
        let second = try Self.page(2, items: 10, total: 50)
        #expect(Self.numbers(try Self.strategy().next(after: second)) == (3...5).map { "http://api.test/items?page=\($0)&per_page=20" })
    }

    @Test("meeting the total by the size asked: the next page is asked, one")
    func meetingTheTotalAsksTheNextPage() throws {
        let third = try Self.page(3, items: 10, total: 50)
        #expect(Self.numbers(try Self.strategy().next(after: third)) == ["http://api.test/items?page=4&per_page=20"])
        // That page holding items: the pages after it numbered by the walk's first page's count.
        let fourth = try Self.page(4, items: 10, total: 50, number: 2)
        #expect(Self.numbers(Self.strategy().next(after: fourth, firstPageItemCount: 10)) == ["http://api.test/items?page=5&per_page=20"])
    }

    /// (The product reads the check through `next(after:)`; fold24b removed a `capOrEnd(_:)` only these tests called.)
    @Test("the list's first page, a later page of a walk, and a full page end the list by the total: no page asked past it")
    func otherPagesAreReadAsBefore() throws {
        #expect(Self.numbers(try Self.strategy().next(after: try Self.page(1, items: 10, total: 10))) == [])
        #expect(Self.numbers(try Self.strategy().next(after: try Self.page(3, items: 10, total: 50, number: 3))) == [])
        #expect(Self.numbers(try Self.strategy().next(after: try Self.page(3, items: 20, total: 60))) == [])
    }
}
