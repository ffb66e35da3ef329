import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Windows at or past the end of a list whose route names no total, over an upstream that answers past its end with its
/// last page again (`mock_past_end=last`: Django's `Paginator.get_page()`), with an empty page, or with a 404
/// (`mock_past_end=404`): the walk starts one page before the window's page, and the window's page is compared with it
/// (`SteppedBackWindowPage`). attack20 I: `200` items 11–20 for `_offset=20` and a `rel="next"` that repeated them for
/// ever; retest20 #3, its offset form; review20 H2: a window just past a short last page walked 999 pages into a `502`.
@Suite struct WindowPastTheEndRepeatEndToEndTests {
    /// `plain` (page-number, 10 a page, no total) and `offset` (offset, `limit` 10, no total): `SchemeRoutes`.
    @Test("a window at or past the end is empty, with no link on", arguments: [
        ("plain", "mock_total=20&per_page=10", 20, 10),
        ("plain", "mock_total=20&per_page=10", 30, 5),
        ("plain", "mock_total=20&per_page=10", 40, 1),
        ("plain", "mock_total=20&per_page=10", 24, 1),
        ("plain", "mock_total=20&per_page=10", 37, 10),
        ("plain", "mock_total=25&per_page=10", 30, 10),
        ("plain", "mock_total=25&per_page=10", 25, 10),
        ("plain", "mock_total=5&per_page=10", 20, 10),
        ("offset", "mock_total=20", 20, 10),
        ("offset", "mock_total=20", 35, 5),
        ("offset", "mock_total=25", 30, 10),
    ])
    func aWindowPastTheEndIsEmpty(route: String, list: String, offset: Int, limit: Int) async throws {
        try await TestStack.run { stack in
            for past in ["last", "404", "empty"] {
                let target = "/\(route)?\(list)&mock_past_end=\(past)&_offset=\(offset)&_limit=\(limit)"
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                #expect(answer.text == "[]", "\(target): \(answer.text.prefix(300))")
                #expect(answer.header("Link")?.contains("rel=\"next\"") != true, "\(target): \(answer.header("Link") ?? "-")")
                let lines = try await stack.get(target + "&_format=ndjson")
                #expect(lines.status == 200 && lines.body.isEmpty, "\(target) ndjson: \(lines.text.prefix(300))")
                // review21 MEDIUM 2: the NDJSON head began before the repeat's check page, and linked on for ever.
                #expect(lines.header("Link")?.contains("rel=\"next\"") != true, "\(target) ndjson: \(lines.header("Link") ?? "-")")
            }
        }
    }

    @Test("a window within the list or across its end still holds its items", arguments: [
        ("plain", 20, 10, 10), ("plain", 25, 20, 10), ("plain", 25, 15, 20), ("plain", 20, 19, 5),
        ("offset", 20, 10, 10), ("offset", 25, 20, 10), ("offset", 25, 15, 20),
    ])
    func aWindowWithinTheListHoldsItsItems(route: String, total: Int, offset: Int, limit: Int) async throws {
        try await TestStack.run { stack in
            for past in ["last", "404", "empty"] {
                let target = "/\(route)?mock_total=\(total)&mock_past_end=\(past)&_offset=\(offset)&_limit=\(limit)"
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.page(offset: offset, count: limit, total: total), "\(target): \(answer.text.prefix(300))")
            }
        }
    }

    /// retest20 #3: an offset route with no total over an upstream that ignores `limit` and answers past its end with
    /// its last page: `_offset=100&_limit=5` of 100 items answered `[81…85]` and linked on.
    @Test("an offset window past the end of an upstream that ignores the limit is empty")
    func anOffsetWindowPastTheEndOfAnUpstreamIgnoringTheLimit() async throws {
        var offset = PaginationScheme.Offset()
        offset.limit = 20
        let route = TestStack.Route(name: "drfnt", mockPath: "/drf/items/", scheme: .offset(offset), items: JSONPath("results")!)
        var mockOptions = MockUpstreamOptions()
        mockOptions.pageSize = 20
        try await TestStack.run(routes: [route], mockOptions: mockOptions) { stack in
            for (start, limit) in [(100, 5), (110, 5), (100, 3), (120, 20)] {
                let target = "/drfnt?mock_total=100&mock_ignores=limit&mock_past_end=last&_offset=\(start)&_limit=\(limit)"
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                #expect(answer.text == "[]", "\(target): \(answer.text.prefix(300))")
                #expect(answer.header("Link")?.contains("rel=\"next\"") != true, "\(target): \(answer.header("Link") ?? "-")")
            }
            let inside = try await stack.get("/drfnt?mock_total=100&mock_ignores=limit&mock_past_end=last&_offset=85&_limit=10")
            #expect(inside.body == MockDataset.page(offset: 85, count: 10, total: 100), "\(inside.text.prefix(300))")
        }
    }

    /// review20 H2: a window just past a short last page costs two requests, not a walk from the first page.
    @Test("a window just past a short last page is empty at two requests and the list's first page")
    func aWindowJustPastAShortLastPage() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/plain?mock_total=20005&per_page=10&_offset=20010&_limit=10")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.text == "[]")
            // With the list's first page asked beside the jump (`WindowSizeProof`): three.
            #expect(stack.mock.log.count == 3, "\(stack.mock.log.requests.map(\.target))")
            let clamp = try await stack.get("/plain?mock_total=45&per_page=10&mock_past_end=last&_offset=50&_limit=10")
            #expect(clamp.text == "[]", "\(clamp.text.prefix(300))")
            #expect(stack.mock.log.count == 6, "\(stack.mock.log.requests.map(\.target))")
        }
    }

    /// A short page before the window's that is the upstream's cap, not the list's end: the window's page holds other
    /// items, and the window is walked again by what the upstream served. (A page-number route over GitHub's service:
    /// its first page names the next one, which shows the cap; `plain` names none, and its short first page is the
    /// whole list.)
    @Test("a capped page before the window's is no end")
    func aCappedPageBeforeTheWindowsIsNoEnd() async throws {
        let route = TestStack.Route(name: "numbers", mockPath: "/github/items", scheme: .pageNumber(.init(pageSize: 10)))
        try await TestStack.run(routes: [route]) { stack in
            for past in ["last", "404", "empty"] {
                let target = "/numbers?mock_total=50&mock_cap=4&mock_past_end=\(past)&_offset=20&_limit=10"
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.page(offset: 20, count: 10, total: 50), "\(target): \(answer.text.prefix(300))")
                let past = try await stack.get("/numbers?mock_total=30&mock_cap=4&mock_past_end=\(past)&_offset=40&_limit=10")
                #expect(past.status == 200 && past.text == "[]", "\(past.text.prefix(300))")
            }
        }
    }

    /// attack20 W: an offset window far past the end of a list with a true count, over an upstream that answers past
    /// its end with its last page: the list's first page, the whole list, repeated there is that list's end (a `502
    /// pagination_stuck` before), and `[]` is the answer README promises.
    @Test("a window far past a clamping list with a true count is empty", arguments: [
        ("mock_total=9", 30, 5), ("mock_total=20", 36, 1),
    ])
    func aWindowFarPastAClampingListWithATrueCount(list: String, offset: Int, limit: Int) async throws {
        try await TestStack.run { stack in
            let target = "/drf?\(list)&mock_past_end=last&_offset=\(offset)&_limit=\(limit)"
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            #expect(answer.text == "[]", "\(target): \(answer.text.prefix(300))")
            let lines = try await stack.get(target + "&_format=ndjson")
            #expect(lines.status == 200 && lines.body.isEmpty, "\(target) ndjson: \(lines.text.prefix(300))")
        }
    }
}
