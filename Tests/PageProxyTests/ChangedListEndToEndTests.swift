import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review17 B5 / attack14 L7: pages of a walk PageProxy numbered from the first page's total that state another total
/// (the list changed between them, or pages of two versions met in the cache) are a clear error, or a walk again
/// revalidating, never a 200 with items twice or missing. (The mock's `mock_head_growth` / `mock_tail_growth` add items
/// to the list for every page but the first.)
@Suite struct ChangedListEndToEndTests {
    @Test("a list that gains items at its head once page 1 is served: 502 upstream_list_changed, not duplicates", arguments: ["drf", "wrapped"])
    func aListGrowingAtItsHeadIsAClearError(route: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/\(route)?mock_total=45&mock_head_growth=3")
            #expect(answer.status == 502, "\(answer.status) \(answer.text.prefix(300))")
            #expect(answer.text.contains("\"upstream_list_changed\""), "\(answer.text.prefix(300))")
        }
    }

    /// review21 F3 / retest15 N2: a list appended to at its tail during the walk (an oldest-first log) moved no page
    /// walked; before, the larger count on the later pages was a 502 on every walk a write landed in (attack14 L7's
    /// "200 cut at the first page's count" stays fixed: the pages numbered from 45 hold the new items too).
    @Test("a list that grew at its tail mid-walk: 200, every item once, and _explain says the end grew", arguments: ["drf", "wrapped"])
    func aListGrowingAtItsTailIsAnswered(route: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/\(route)?mock_total=45&mock_tail_growth=5")
            #expect(answer.status == 200, "\(answer.status) \(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 50), "\(answer.header("PageProxy-Items") ?? "-") items")
            let explained = try await stack.get("/\(route)?mock_total=45&mock_tail_growth=5&_explain=1")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(explained.text.utf8)) as? [String: Any])
            let grew = try #require(account["stated_end_grew"] as? [String: Any], "\(explained.text.prefix(400))")
            #expect(grew["from"] as? Int == 45)
            #expect(grew["to"] as? Int == 50)
            #expect(grew["unit"] as? String == "items")
        }
    }

    /// review21 F3: a search engine's estimated total moves with the page while no item does (Meilisearch's
    /// `estimatedTotalHits`); a route that says its total is an estimate answers the items (before: 502 every time).
    @Test("an estimated total that moves with the page (totalIsEstimate): 200 with every item; an exact one that shrinks, 502", arguments: [3, -2])
    func anEstimatedTotalThatMovesIsAnswered(drift: Int) async throws {
        var estimated = try #require(SchemeRoutes.all.first { $0.name == "drf" })
        guard case .offset(var options) = estimated.scheme else { throw CancellationError() }
        options.totalIsEstimate = true
        estimated.scheme = .offset(options)
        estimated.name = "estimate"
        let exact = try #require(SchemeRoutes.all.first { $0.name == "drf" })
        try await TestStack.run(routes: [estimated, exact]) { stack in
            let answer = try await stack.get("/estimate?mock_total=45&mock_count_drift=\(drift)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 45), "\(answer.header("PageProxy-Items") ?? "-") items")
            let strict = try await stack.get("/drf?mock_total=45&mock_count_drift=\(drift)")
            // An exact count that grows with no item seen to move reads as a tail append; one that shrinks as rows deleted.
            #expect(strict.status == (drift < 0 ? 502 : 200), "\(strict.text.prefix(300))")
        }
    }

    @Test("NDJSON: a changed list ends the stream with the error line (or the error status), never a clean end")
    func aChangedListFailsAnNDJSONStream() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/drf?mock_total=45&mock_head_growth=3&_format=ndjson"))
            let raw = try await client.readUntilClose()
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.contains("upstream_list_changed"), "\(text.prefix(400))")
            if text.hasPrefix("HTTP/1.1 200") {
                #expect(try !ChunkedBody.decode(raw.bodyAfterHead).isComplete, "the stream must not end with the last chunk")
            }
        }
    }

    /// review17's stitched cache: page 3 stored when it was the last (`"next": null`, `count` 25), page 1 refreshed
    /// once the list had 45 items. The walk met both versions: it walks again, revalidating, and answers the 45.
    @Test("pages of two versions met in the cache: walked again revalidated, the whole list of now (not pages 1-3)")
    func pagesOfTwoVersionsInTheCacheAreWalkedAgain() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-changed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var scheme = PaginationScheme.NextURLInBody()
        scheme.nextPath = JSONPath("next")!
        scheme.totalItemsPath = JSONPath("count")
        let route = TestStack.Route(name: "drfc", mockPath: "/drf-pages/items/", scheme: .nextURLInBody(scheme), items: JSONPath("results")!)
        let cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        try await TestStack.run(routes: [route], configure: { $0.cache = cache }) { stack in
            stack.mock.setTotalItems(25)
            let first = try await stack.get("/drfc")
            #expect(first.body == MockDataset.mergedJSON(total: 25))
            stack.mock.setTotalItems(45)
            let refreshed = try await stack.get("/drfc?_max_pages=1&_fresh=true")
            #expect(refreshed.status == 200)
            let stitched = try await stack.get("/drfc")
            #expect(stitched.status == 200, "\(stitched.text.prefix(300))")
            #expect(stitched.body == MockDataset.mergedJSON(total: 45), "\(stitched.header("PageProxy-Items") ?? "-") items")
        }
    }
}

/// attack16 M3: an upstream whose page-size cap was lowered while the cache held a page of the old size. The walk
/// numbered its pages by the cached first page's 10 and stitched pages of 7 after it: a 200 with items twice and the
/// last ones never, which the cache then replayed.
@Suite struct ChangedPageSizeEndToEndTests {
    @Test("a cap lowered under a cached page 1: walked again revalidated, every item once (not pages of 10 and 7 stitched)")
    func aCapLoweredUnderACachedPageIsWalkedAgain() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-capped-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let routes = SchemeRoutes.all.filter { $0.name == "wrapped" }
        try await TestStack.run(routes: routes, configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            let first = try await stack.get("/wrapped?mock_total=40&_max_pages=1")
            #expect(first.status == 200)
            stack.mock.setMaxPageSize(7)
            let answer = try await stack.get("/wrapped?mock_total=40")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 40), "\(answer.header("PageProxy-Items") ?? "-") items")
        }
    }
}

/// review17 B10: a stated total lower than the truth (PostgREST's estimated counts, a `0` beside items) no longer ends
/// an offset or page-number walk early.
@Suite struct UnderstatedCountEndToEndTests {
    @Test(
        "a count 80 % of the truth, or 0 beside items: every item, once (before: 80 of 100; page 1 alone)",
        arguments: [("drf", 100, 80), ("wrapped", 100, 80), ("drf", 35, 0), ("wrapped", 35, 0)])
    func aCountBelowTheTruthGetsEveryItem(route: String, total: Int, percent: Int) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/\(route)?mock_total=\(total)&mock_count_percent=\(percent)")
            #expect(answer.status == 200)
            #expect(answer.body == MockDataset.mergedJSON(total: total), "\(answer.header("PageProxy-Items") ?? "-") items")
            #expect(answer.header("PageProxy-Total") == nil, "the stated count contradicts the items answered")
        }
    }

    @Test("a true count that is a multiple of the page size: one more page asked, found empty, the answer whole")
    func aTrueCountCostsOneEmptyPage() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/drf?mock_total=40")
            #expect(answer.body == MockDataset.mergedJSON(total: 40))
            #expect(answer.header("PageProxy-Total") == "40")
            #expect(stack.mock.log.count == 5)
        }
    }

    /// retest15 N4: the page after a full stated end is only a check; an upstream that answers it with an error (a
    /// 403, a 500 after the retries) still gets its list answered, as before the check was asked.
    @Test("the check page past a full stated end fails: the list ends at its total, 200", arguments: [
        ("drf", "status403"), ("wrapped", "status403"), ("drf", "status500"),
    ])
    func aFailedCheckPageEndsTheListAtItsTotal(route: String, fault: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/\(route)?mock_total=40&mock_fault=\(fault)@5")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 40))
            #expect(answer.header("PageProxy-Total") == "40")
        }
    }

    /// review21 F1: an upstream that answers a page past the end with its last page again (Django's `get_page()`): the
    /// check page past a full stated end holds the last page's items, which are not handed out twice.
    @Test("the check page past a full stated end repeats the last page: dropped, every item once", arguments: [
        "/drf?mock_total=20", "/wrapped?mock_total=20", "/drf?mock_total=10", "/wrapped?mock_total=10", "/drf?mock_total=20&limit=10",
    ])
    func aCheckPageRepeatingTheLastIsDropped(target: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get(target + "&mock_past_end=last")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            let total = target.contains("total=20") ? 20 : 10
            #expect(answer.body == MockDataset.mergedJSON(total: total), "\(answer.header("PageProxy-Items") ?? "-") items")
            #expect(stack.mock.log.count <= total / 10 + 1)
        }
    }

    /// retest15 N6: a list of exactly the route's `maxPages` (or the client's `_max_pages`, or `_max_items`) full pages
    /// is complete: the check page counts against no cap, and the answer is neither a 502 nor truncated.
    @Test("a list of exactly maxPages full pages, or a cap met exactly at the stated end: whole, not truncated")
    func aCapMetAtTheStatedEndIsNoTruncation() async throws {
        var drf = try #require(SchemeRoutes.all.first { $0.name == "drf" })
        drf.configure = { $0.maxPages = 4 }
        try await TestStack.run(routes: [drf]) { stack in
            for target in ["/drf?mock_total=40", "/drf?mock_total=40&_max_pages=4", "/drf?mock_total=40&_max_items=40"] {
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.mergedJSON(total: 40), "\(target)")
                #expect(answer.header("PageProxy-Truncated") == nil, "\(target)")
            }
        }
    }

    /// contract22 F2: with no total, a list of exactly `maxPages` full pages shows its end only on the page after them;
    /// it was refused "more than 3 pages". That page is asked, and only an item on it fails the walk.
    @Test("no total: a list of exactly maxPages full pages is whole; one item more is too_many_pages", arguments: ["plain", "offset", "slack"])
    func exactlyMaxPagesWithNoTotal(routeName: String) async throws {
        var route = try #require(SchemeRoutes.all.first { $0.name == routeName })
        route.configure = { $0.maxPages = 3 }
        try await TestStack.run(routes: [route]) { stack in
            for total in [29, 30] {
                let answer = try await stack.get("/\(routeName)?mock_total=\(total)")
                #expect(answer.status == 200, "\(total): \(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.mergedJSON(total: total), "\(total)")
            }
            for target in ["/\(routeName)?mock_total=31", "/\(routeName)?mock_total=100"] {
                let answer = try await stack.get(target)
                #expect(answer.status == 502)
                #expect(answer.text.contains("too_many_pages"), "\(target): \(answer.text.suffix(300))")
            }
            // A stream has sent the three pages' items by then: it ends with the error line, cut.
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/\(routeName)?mock_total=31&_format=ndjson"))
            let streamed = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            #expect(streamed.contains("too_many_pages") && !streamed.hasSuffix("0\r\n\r\n"), "\(streamed.suffix(300))")
        }
    }
}

/// review17 L3 / L8: a walk that ended short of its stated total says so in `_explain`, and a client's item cap reached
/// on the page that ended it is no truncation.
@Suite struct EndedShortOfTotalEndToEndTests {
    /// `drf-pages` numbered by its `count`, which states four times the 25 items: page 3 says `"next": null`.
    private static var routes: [TestStack.Route] {
        var scheme = PaginationScheme.NextURLInBody()
        scheme.nextPath = JSONPath("next")!
        scheme.totalItemsPath = JSONPath("count")
        return [TestStack.Route(name: "drfc", mockPath: "/drf-pages/items/", scheme: .nextURLInBody(scheme), items: JSONPath("results")!)]
    }

    @Test("_explain names the end short of the total and the total stated (before: total null, outcome complete, nothing more)")
    func explainSaysShortOfTotal() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let explained = try await stack.get("/drfc?mock_total=25&mock_count_percent=400&_explain=1")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(explained.text.utf8)) as? [String: Any])
            #expect(account["ended"] as? String == "short_of_total", "\(explained.text.prefix(400))")
            #expect(account["stated_total"] as? Int == 100)
            #expect(account["items"] as? Int == 25)
        }
    }

    @Test("an item cap reached on the page that ended the walk short of its total: no PageProxy-Truncated")
    func aCapAtTheShortEndIsNoTruncation() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/drfc?mock_total=25&mock_count_percent=400&_max_items=25")
            #expect(answer.body == MockDataset.mergedJSON(total: 25))
            #expect(answer.header("PageProxy-Truncated") == nil)
        }
    }
}

/// retest14 M1: data with no id that repeats with the page size (weekdays under `per_page=7`) makes a page equal, byte for
/// byte, to the one before, which a walk under a size it cannot trust takes for an upstream's past-the-end repeat.
@Suite struct RepeatedPageEndEndToEndTests {
    @Test("a walk ended at a page repeating the one before says it may be cut: PageProxy-Truncated, and _explain says why")
    func aRepeatEndedWalkIsFlagged() async throws {
        try await TestStack.run { stack in
            // A client's size past the route's (10): the upstream may cap it, so pages are compared.
            let answer = try await stack.get("/plain?mock_total=60&mock_period=20&per_page=20")
            #expect(answer.status == 200)
            #expect(answer.header("PageProxy-Items") == "20")
            #expect(answer.header("PageProxy-Truncated") == "true", "20 of 60 rows, said nowhere")
            let explained = try await stack.get("/plain?mock_total=60&mock_period=20&per_page=20&_explain=1")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(explained.text.utf8)) as? [String: Any])
            #expect(account["ended"] as? String == "repeated_page", "\(explained.text.prefix(400))")
            // Data that does not repeat ends as before: no flag.
            let plain = try await stack.get("/plain?mock_total=60&per_page=20")
            #expect(plain.body == MockDataset.mergedJSON(total: 60))
            #expect(plain.header("PageProxy-Truncated") == nil)
        }
    }
}
