import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The corners of windows over lists whose route names no total (the walk starts one page before the window's,
/// `SteppedBackWindowPage`) and of short first pages repeated past the end (`ShortFirstPageRepeat`), left by the
/// twenty-first session (closing-41, retest21 A/B/C).
@Suite struct SteppedBackWindowCornersTests {
    /// `drfnt`: DRF's offset service with no total read, `limit` 10 (retest21's route); `drfnt20`: the same, `limit` 20
    /// (the harness's `wagtail-offset-nototal`).
    static let routes: [TestStack.Route] = [10, 20].map { limit in
        var offset = PaginationScheme.Offset()
        offset.limit = limit
        return TestStack.Route(
            name: limit == 10 ? "drfnt" : "drfnt\(limit)", mockPath: "/drf/items/", scheme: .offset(offset), items: JSONPath("results")!)
    }

    static var mockOptions: MockUpstreamOptions {
        var options = MockUpstreamOptions()
        options.pageSize = 20
        return options
    }

    /// closing-41 MEDIUM (harness `wagtail-offset-nototal~o150-l100-mp2`): the page a no-total window steps back to
    /// took one of the client's `_max_pages`: 10 items (pages 120 and 140), where the same cap gave 30 before.
    @Test("the page a window steps back to is not counted against the client's _max_pages")
    func theSteppedBackPageIsNotTheClients() async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let target = "/drfnt20?mock_total=250&_offset=150&_limit=100&_max_pages=2"
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 150, count: 30, total: 250), "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Truncated") == "true")
            #expect(answer.header("Link")?.contains("_offset=180&_limit=100>; rel=\"next\"") == true, "\(answer.header("Link") ?? "-")")
            // Pages 120 (the step back), 140 and 160: the client's two pages are the window's own.
            #expect(stack.mock.log.count == 3, "\(stack.mock.log.requests.map(\.target))")
            let lines = try await stack.get(target + "&_format=ndjson")
            #expect(lines.status == 200)
            #expect(lines.text == CappedWindowTests.lines(offset: 150, count: 30), "\(lines.text.prefix(300))")
            #expect(lines.header("PageProxy-Truncated") == "true")
            #expect(lines.header("Link")?.contains("_offset=180&_limit=100>; rel=\"next\"") == true, "\(lines.header("Link") ?? "-")")
            // One page: the window's own, not only the page before it.
            let one = try await stack.get("/drfnt20?mock_total=250&_offset=150&_limit=100&_max_pages=1&x=1")
            #expect(one.body == MockDataset.page(offset: 150, count: 10, total: 250), "\(one.text.prefix(300))")
        }
    }

    /// After a short page before the window's, the window's page past the list's end — a 404, empty, or the short page's
    /// tail again — is `[]` with no next. The tail again is the repeat-last habit with the client's own `limit` (retest21
    /// A: `[8]` and `rel="next"` for `_offset=14`): the page at the first position the page before did not ask shows it
    /// the end (the page before again there), one request more than the jump.
    @Test("a window past a short last page is empty", arguments: [
        ("mock_total=10&limit=7", 14, 1), ("mock_total=10&limit=7", 14, 7), ("mock_total=10&limit=7", 17, 3),
        ("mock_total=23&limit=7", 28, 2), ("mock_total=12", 20, 5),
    ])
    func aShortPagesTailAgainIsTheEnd(list: String, offset: Int, limit: Int) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            for past in ["404", "empty", "last"] {
                let target = "/drfnt?\(list)&mock_past_end=\(past)&_offset=\(offset)&_limit=\(limit)"
                let answer = try await stack.get(target)
                #expect(answer.status == 200 && answer.text == "[]", "\(target): \(answer.status) \(answer.text.prefix(300))")
                #expect(answer.header("Link")?.contains("rel=\"next\"") != true, "\(target): \(answer.header("Link") ?? "-")")
                let lines = try await stack.get(target + "&_format=ndjson")
                #expect(lines.status == 200 && lines.body.isEmpty, "\(target) ndjson: \(lines.text.prefix(300))")
                #expect(lines.header("Link")?.contains("rel=\"next\"") != true, "\(target) ndjson: \(lines.header("Link") ?? "-")")
            }
            // Inside the list, the window's items.
            let inside = try await stack.get("/drfnt?mock_total=10&limit=7&mock_past_end=last&_offset=8&_limit=5")
            #expect(inside.body == MockDataset.page(offset: 8, count: 2, total: 10), "\(inside.text.prefix(300))")
        }
    }

    /// retest21 A's requests: the page before (`offset=7&limit=7`, `[8,9,10]`), the window's (`offset=10&limit=3`, `[10]`,
    /// its tail again) and the page at the first position the page before did not ask (`offset=14&limit=7`, `[8,9,10]`
    /// again): the end, three requests, none walked again.
    @Test("a tail again past a short page costs one request more")
    func aTailAgainCostsOneRequest() async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let answer = try await stack.get("/drfnt?mock_total=10&limit=7&mock_past_end=last&_offset=14&_limit=1")
            #expect(answer.status == 200 && answer.text == "[]", "\(answer.status) \(answer.text.prefix(300))")
            let asked = stack.mock.log.requests.map(\.target)
            #expect(asked.count == 3, "\(asked)")
            #expect(asked.last?.contains("offset=14") == true && asked.last?.contains("limit=7") == true, "\(asked)")
        }
    }

    /// review23 LOW 3: the NDJSON form of retest21 A, asked first on a list new to the server (no JSON answer before it
    /// in the cache), answered `200`, empty, with a `rel="next"` (`6b3f30c`): its head went out before the tail check
    /// was read. fold23's tail check holds the head (`SteppedBackWindowPage.isArmed`) until that page is read.
    @Test("an NDJSON window past a short last page, asked first, has no next", arguments: [(14, 1), (14, 7), (17, 3)])
    func aStreamedWindowPastAShortPageHasNoNext(offset: Int, limit: Int) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let target = "/drfnt?mock_total=10&limit=7&mock_past_end=last&_format=ndjson&_offset=\(offset)&_limit=\(limit)"
            let lines = try await stack.get(target)
            #expect(lines.status == 200 && lines.body.isEmpty, "\(target): \(lines.status) \(lines.text.prefix(300))")
            #expect(lines.header("Link")?.contains("rel=\"next\"") != true, "\(target): \(lines.header("Link") ?? "-")")
        }
    }

    /// review22 H1: a filtered list's window whose page, asked from the short page before's end, lies inside the
    /// positions that page covered holds its tail honestly; the page after those positions holds new items, and the
    /// window is walked again: its items, never `[]` (fix22a's rule, reverted, answered `[]`).
    @Test("a filtered list's page holding the page before's tail is not its end", arguments: ["", "&mock_past_end=last"])
    func aFilteredTailIsNotTheEnd(past: String) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let shown = (1...100).filter { $0 % 2 == 0 }
            for (offset, limit) in [(25, 10), (49, 1), (20, 3)] {
                let target = "/drfnt?mock_total=100&mock_show_every=2\(past)&zz=\(offset)&_offset=\(offset)&_limit=\(limit)"
                let window = try await stack.get(target)
                #expect(window.status == 200, "\(target): \(window.text.prefix(300))")
                #expect(IgnoredLimitEndToEndTests.ids(window.body) == Array(shown.dropFirst(offset).prefix(limit)),
                    "\(target): \(IgnoredLimitEndToEndTests.ids(window.body))")
            }
        }
    }

    /// retest21 LOW B: a list shorter than the `limit` behind an upstream answering past its end with its last page: the
    /// second page, asked after the first's items, is the first again, which was a `502 pagination_stuck` (an upstream
    /// ignoring the offset). The first page asked one position on tells them apart.
    @Test("a short list repeated past its end is the whole list", arguments: [5, 3, 1, 9])
    func aShortListRepeatedPastItsEnd(total: Int) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let whole = try await stack.get("/drfnt?mock_total=\(total)&mock_past_end=last")
            #expect(whole.status == 200, "\(whole.text.prefix(300))")
            #expect(whole.body == MockDataset.page(offset: 0, count: total, total: total), "\(whole.text.prefix(300))")
            #expect(whole.header("PageProxy-Truncated") == nil)
            let lines = try await stack.get("/drfnt?mock_total=\(total)&mock_past_end=last&_format=ndjson")
            #expect(lines.text == CappedWindowTests.lines(offset: 0, count: total), "\(lines.text.prefix(300))")
            // `_offset=10`: the window's page is the list's second, and the walk steps back to the first (fix22a LOW: `[1]`
            // and a next, the window walked again by what the short first page served and jumped past the end).
            for (offset, limit) in [(0, 2), (total - 1, 3), (total, 5), (10, 1), (15, 3), (20, 1), (35, 2)] {
                let target = "/drfnt?mock_total=\(total)&mock_past_end=last&_offset=\(offset)&_limit=\(limit)"
                let window = try await stack.get(target)
                #expect(window.status == 200, "\(target): \(window.text.prefix(300))")
                #expect(window.body == MockDataset.page(offset: offset, count: limit, total: total), "\(target): \(window.text.prefix(300))")
                #expect(
                    (window.header("Link")?.contains("rel=\"next\"") == true) == (offset + limit < total),
                    "\(target): \(window.header("Link") ?? "-")")
            }
        }
    }

    /// The other side of `ShortFirstPageRepeat`: an upstream that ignores the offset repeats its (capped) first page
    /// everywhere, one position on too: still a `502`, never its first page as the whole list under a `200`. A window on
    /// the list's second page too, which steps back to the first page (review23 M1: fold23 answered it `[]`; the start
    /// code `[1]` and a next).
    @Test("an upstream ignoring the offset under a cap still fails")
    func anIgnoredOffsetStillFails() async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let cells = ["", "&mock_past_end=last"].flatMap { past in ["", "&_offset=10&_limit=1", "&_offset=12&_limit=5"].map { past + $0 } }
            for cell in cells {
                let target = "/drfnt?mock_total=50&mock_cap=5&mock_ignores=offset\(cell)"
                let answer = try await stack.get(target)
                #expect(answer.status == 502, "\(target): \(answer.text.prefix(300))")
                #expect(answer.text.contains("pagination_stuck"), "\(target): \(answer.text.prefix(300))")
            }
        }
    }

    /// review23 M1: a window on the list's second page steps back to the list's first page, and an upstream ignoring the
    /// offset answers it there again, as it answers every page. The merged walk fails (`IgnoredPageNumber`), and so does
    /// the window: read as the last page repeated past the end (fold23's step back to the first page), it was `200 []`.
    @Test("a window on the second page of an upstream ignoring the offset fails as the merged walk does", arguments: [
        "mock_total=50&_offset=19&_limit=1", "mock_total=20&_offset=10&_limit=5", "mock_total=50&_offset=10&_limit=5",
    ])
    func anIgnoredOffsetOnTheSecondPageFails(cell: String) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            for target in ["/drfnt?mock_total=50&mock_ignores=offset", "/drfnt?mock_ignores=offset&\(cell)"] {
                let answer = try await stack.get(target)
                #expect(answer.status == 502, "\(target): \(answer.text.prefix(300))")
                #expect(answer.text.contains("pagination_stuck"), "\(target): \(answer.text.prefix(300))")
            }
        }
    }

    /// review23 M1, streamed: the window's NDJSON answer is the error (its head waits for the window's page, read beside
    /// the page before), never an empty `200` (fold23: a `200`, no line, flagged truncated).
    @Test("a streamed window on the second page of an upstream ignoring the offset is the error")
    func aStreamedIgnoredOffsetOnTheSecondPageFails() async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let client = try await stack.client()
            let target = "/drfnt?mock_total=50&mock_ignores=offset&_offset=10&_limit=5&_format=ndjson"
            try await client.send(RawHTTPClient.requestText(target, headers: ["Connection": "close"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            #expect(raw.hasPrefix("HTTP/1.1 502"), "\(raw.prefix(300))")
            #expect(raw.contains("\"code\":\"pagination_stuck\""), "\(raw.prefix(600))")
        }
    }

    /// retest21 LOW C: an NDJSON window whose walk ended at its first page (a capped page-number list with no total,
    /// walked again from the first page, 4 items): a held answer said no `rel="next"`, a `TE: trailers` stream did.
    @Test("a streamed window's head links on as the held answer's does")
    func aStreamedHeadAgreesWithTheHeldAnswer() async throws {
        try await TestStack.run { stack in
            let target = "/plain?mock_total=100&mock_cap=4&_offset=20&_limit=5&_format=ndjson"
            let held = try await stack.get(target)
            #expect(held.status == 200 && held.body.isEmpty, "\(held.text.prefix(300))")
            #expect(held.header("Link")?.contains("rel=\"next\"") == false, "\(held.header("Link") ?? "-")")
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(target + "&x=1", headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            let head = raw.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(raw.hasPrefix("HTTP/1.1 200"), "\(raw.prefix(300))")
            #expect(head.contains("\r\nLink: ") && !head.contains("rel=\"next\""), "\(head)")
            #expect(!raw.contains("!pageproxy-error"), "\(raw.suffix(300))")
        }
    }

    /// The MEDIUM carried from fold23: a list of 10 (or 20) under a cap of 4 whose upstream answers past its end with its
    /// last page as it cuts it (`mock_past_end=last`), and a window just past its end. The first walk, from the list's
    /// first page, shows the cap; walked again by it from the window's offset, the page there was the last page again
    /// (`[9,10]`), and the answer `[9]` with a next. Walked again from one served page before the window's offset, the
    /// window's page holds that page's last items again, and the page at the first position it did not ask shows the end.
    @Test("a window past a capped list's end, walked again by the cap, is empty", arguments: [
        (10, 10, 1), (10, 11, 1), (10, 10, 5), (20, 20, 1), (20, 21, 3),
    ])
    func aWindowPastACappedListsEndIsEmpty(total: Int, offset: Int, limit: Int) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            let list = "/drfnt?mock_total=\(total)&limit=10&mock_cap=4&mock_past_end=last"
            // (The merged answer of 20 was a `502` at its sixth page, the fifth again, until fix25: `OffsetPastEndRepeatTests`.)
            let merged = try await stack.get(list + "&zz=m")
            #expect(merged.body == MockDataset.page(offset: 0, count: total, total: total), "\(merged.text.prefix(300))")
            // Each twice: the second request walks again at once, by the size the plan remembers.
            for (format, ask) in [("", 1), ("", 2), ("&_format=ndjson", 1), ("&_format=ndjson", 2)] {
                let target = list + "&zz=\(format.isEmpty ? "j" : "n")&_offset=\(offset)&_limit=\(limit)" + format
                let answer = try await stack.get(target)
                let empty = format.isEmpty ? answer.text == "[]" : answer.body.isEmpty
                #expect(answer.status == 200 && empty, "\(target) (\(ask)): \(answer.status) \(answer.text.prefix(300))")
                #expect(answer.header("Link")?.contains("rel=\"next\"") != true, "\(target) (\(ask)): \(answer.header("Link") ?? "-")")
            }
            // Inside the list, the window's items; and over an honest cap (no repeat past the end), the items after a jump.
            let inside = try await stack.get(list + "&_offset=\(total - 2)&_limit=5")
            #expect(inside.body == MockDataset.page(offset: total - 2, count: 2, total: total), "\(inside.text.prefix(300))")
            let capped = try await stack.get("/drfnt?mock_total=50&limit=10&mock_cap=4&_offset=\(offset)&_limit=\(limit)")
            #expect(capped.body == MockDataset.page(offset: offset, count: limit, total: 50), "\(capped.text.prefix(300))")
        }
    }

    /// fix25: the walk again stepped back one served page (38 for `_offset=42`, a cap of 4) steps off the upstream's grid
    /// (0, 4, …, 48): past the end, offset 50 held `[49,50]`, the page before's (`[47…50]`) tail, and the walk failed with
    /// a `502` ("it starts with items of the page before again") where the start code answered the window's items. From
    /// 42 for `_offset=46` (not stepped back) it was a `502` on the start code too.
    @Test("a window inside a capped list walked again off the upstream's grid ends at the tail again", arguments: [42, 38, 46])
    func aTailAgainOffTheGridEndsTheWalk(offset: Int) async throws {
        try await TestStack.run(routes: Self.routes, mockOptions: Self.mockOptions) { stack in
            for format in ["", "&_format=ndjson"] {
                let target = "/drfnt?mock_total=50&limit=10&mock_cap=4&mock_past_end=last&_offset=\(offset)&_limit=10" + format
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                let count = min(10, 50 - offset)
                if format.isEmpty {
                    #expect(answer.body == MockDataset.page(offset: offset, count: count, total: 50), "\(target): \(answer.text.prefix(300))")
                } else {
                    #expect(answer.text == CappedWindowTests.lines(offset: offset, count: count), "\(target): \(answer.text.prefix(300))")
                }
            }
        }
    }
}
