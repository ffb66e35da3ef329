import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack24 HIGH 1 and HIGH 2: a `page-number` window (route `pageSize: 10`) over an upstream that serves larger pages
/// than asked (it ignores `per_page`, or serves at least 15: `mock_limit_floor`). The jumped page's count could not tell
/// which items it held: with a total, the upstream's last page held exactly the count expected, and its items were
/// answered for others under a 200; with no total, the page before the window's was past the upstream's end, and read as
/// the list's end (`200 []`). The list's first page, asked beside the jump (`WindowSizeProof`), shows the size served.
@Suite struct WindowSizeProofTests {
    /// (target without the window, total, offset, limit): each was answered other items (a total) or `[]` (no total).
    static let cases: [(String, Int, Int, Int)] = [
        ("/wrapped?mock_total=30&mock_ignores=per_page", 30, 10, 5),
        ("/wrapped?mock_total=50&mock_ignores=per_page", 50, 20, 5),
        ("/wrapped?mock_total=30&mock_ignores=per_page", 30, 15, 5),
        ("/wrapped?mock_total=30&mock_ignores=per_page", 30, 10, 10),
        ("/wrapped?mock_total=25&mock_limit_floor=15", 25, 10, 5),
        ("/plain?mock_total=45&mock_ignores=per_page", 45, 40, 5),
        ("/plain?mock_total=37&mock_ignores=per_page", 37, 30, 10),
        ("/plain?mock_total=25&mock_ignores=per_page", 25, 20, 5),
        ("/plain?mock_total=61&mock_limit_floor=15", 61, 50, 5),
        ("/plain?mock_total=45&mock_ignores=per_page&mock_past_end=404", 45, 40, 5),
        ("/plain?mock_total=45&mock_ignores=per_page&mock_past_end=last", 45, 40, 5),
        ("/plain?mock_total=61&mock_limit_floor=15&mock_past_end=404", 61, 50, 5),
    ]

    @Test("a page-number window over an upstream serving larger pages holds its own items, merged and NDJSON")
    func largerPagesHoldTheWindowsItems() async throws {
        try await TestStack.run { stack in
            for (target, total, offset, limit) in Self.cases {
                let count = max(0, min(limit, total - offset))
                let merged = try await stack.get("\(target)&_offset=\(offset)&_limit=\(limit)")
                #expect(merged.status == 200, "\(target) \(offset)+\(limit): \(merged.text.prefix(300))")
                #expect(
                    merged.body == MockDataset.page(offset: offset, count: count, total: total),
                    "\(target) \(offset)+\(limit): \(merged.text.prefix(300))")
                let ndjson = try await stack.get("\(target)&_offset=\(offset)&_limit=\(limit)&_format=ndjson")
                #expect(ndjson.status == 200, "\(target) \(offset)+\(limit) NDJSON: \(ndjson.text.prefix(300))")
                #expect(ndjson.text == CappedWindowTests.lines(offset: offset, count: count), "\(target) \(offset)+\(limit) NDJSON: \(ndjson.text)")
            }
        }
    }

    /// review24 LOW: walked again from the list's first page by the size served, the NDJSON form sent its head after
    /// that page, before any of the window's items, and linked on (`rel="next"`) past the list's end where the JSON form
    /// did not. The two forms of one window agree: items and `Link`, asked first as either.
    @Test("the NDJSON and JSON forms of a window walked again from the first page agree on rel=next", arguments: [false, true])
    func bothFormsAgreeOnNext(ndjsonFirst: Bool) async throws {
        // A latency, so that the page after the list's first is not at hand when it is taken (as over a network).
        try await TestStack.run(mockOptions: MockUpstreamOptions(latency: .milliseconds(20))) { stack in
            // (Not 37 items from 30: the window's items come on a page that does not end the walk yet, and the head
            // leaves with a `next` as every no-total NDJSON head does: left open, fix25's report.)
            for (i, (target, total, offset, limit)) in Self.cases.enumerated() where !(total == 37 && offset == 30) {
                let count = max(0, min(limit, total - offset))
                let window = "\(target)&zz=\(i)&_offset=\(offset)&_limit=\(limit)"
                let forms = ndjsonFirst ? [window + "&_format=ndjson", window] : [window, window + "&_format=ndjson"]
                var nexts: [Bool] = []
                for form in forms {
                    let answer = try await stack.get(form)
                    #expect(answer.status == 200, "\(form): \(answer.text.prefix(300))")
                    nexts.append(answer.header("Link")?.contains("rel=\"next\"") == true)
                }
                #expect(nexts[0] == nexts[1], "\(forms): next \(nexts)")
                // A window that reaches the list's end links on in neither form.
                if offset + limit >= total { #expect(nexts == [false, false], "\(forms): next \(nexts), \(count) items") }
            }
        }
    }

    @Test("a window jumped on a list of the size asked costs the jumped page and its first page, then the jumped page alone")
    func aWellBehavedListPaysOneRequest() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let routes = SchemeRoutes.all.map(\.freshForADay)
        try await TestStack.run(routes: routes, configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            for route in ["wrapped", "plain"] {
                stack.mock.log.reset()
                let first = try await stack.get("/\(route)?mock_total=100&_offset=50&_limit=5")
                #expect(first.body == MockDataset.page(offset: 50, count: 5, total: 100), "\(route): \(first.text.prefix(200))")
                // With a total: the jumped page and the list's first; with none, the page before the window's too.
                let cold = stack.mock.log.count
                #expect(cold == (route == "wrapped" ? 2 : 3), "\(route): \(stack.mock.log.requests.map(\.target))")
                let later = try await stack.get("/\(route)?mock_total=100&_offset=80&_limit=5")
                #expect(later.body == MockDataset.page(offset: 80, count: 5, total: 100), "\(route): \(later.text.prefix(200))")
                // The list's first page from the cache.
                #expect(stack.mock.log.count - cold == cold - 1, "\(route): \(stack.mock.log.requests.map(\.target))")
            }
        }
    }
}
