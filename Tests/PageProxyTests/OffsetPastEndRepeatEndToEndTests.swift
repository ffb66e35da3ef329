import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// fold23b's LOW, end to end: an offset route with no total over an upstream that answers any offset past its list's end
/// with its last page (`mock_past_end=last`, Django's `get_page()` behind an offset). A list whose last page is full
/// (20 items at the route's limit of 10, or under a cap of 4) was a `502` at the page past its end ("it starts with items
/// of the page before again"), where the list was whole. Now the repeat ends the walk, and the page far past shows the
/// habit; an upstream that ignores the offset is still a `502`.
@Suite struct OffsetPastEndRepeatEndToEndTests {
    @Test(
        "a full last page repeated past the end of an offset list with no total is the whole list, JSON and NDJSON",
        arguments: ["mock_total=20", "mock_total=20&limit=10&mock_cap=4", "mock_total=30&mock_cap=5", "mock_total=10"])
    func aFullLastPageRepeatedIsTheWholeList(list: String) async throws {
        try await TestStack.run(routes: SteppedBackWindowCornersTests.routes, mockOptions: SteppedBackWindowCornersTests.mockOptions) { stack in
            let total = Int(list.split(separator: "&")[0].dropFirst("mock_total=".count)) ?? 0
            let target = "/drfnt?\(list)&mock_past_end=last"
            let merged = try await stack.get(target)
            #expect(merged.status == 200, "\(target): \(merged.text.prefix(300))")
            #expect(merged.body == MockDataset.page(offset: 0, count: total, total: total), "\(target): \(merged.text.prefix(300))")
            // The page far past repeated the last page: the upstream's habit, so the answer is not flagged as cut.
            #expect(merged.header("PageProxy-Truncated") != "true", "\(target)")
            let lines = try await stack.get(target + "&zz=n&_format=ndjson")
            #expect(lines.status == 200)
            #expect(lines.text == CappedWindowTests.lines(offset: 0, count: total), "\(target): \(lines.text.suffix(300))")
        }
    }

    @Test(
        "data that repeats with the page size (no id) is never a 200 short of its items: merged, NDJSON and windows",
        arguments: [
            "mock_total=40&mock_period=10", "mock_total=40&mock_period=10&mock_past_end=last", "mock_total=40&mock_period=5&limit=5",
            "mock_total=45&mock_period=5", "mock_total=40&mock_period=4&mock_cap=4", "mock_total=40&mock_period=4&mock_cap=4&mock_past_end=last",
        ])
    func periodicDataIsNotOnePage(list: String) async throws {
        // review25 HIGH: page 2 repeats the full first page, and the first page one position on starts with its second
        // item, as a one-page list's does; but it holds a full page. Was a 200 with 10 of 40 items, and `[]` for windows.
        let period = Int(list.split(separator: "&")[1].dropFirst("mock_period=".count)) ?? 1
        let total = Int(list.split(separator: "&")[0].dropFirst("mock_total=".count)) ?? 0
        let days = (0..<total).map { Array("{\"day\":\($0 % period)}".utf8) }
        try await TestStack.run(routes: SteppedBackWindowCornersTests.routes, mockOptions: SteppedBackWindowCornersTests.mockOptions) { stack in
            for (window, offset, count) in [("", 0, total), ("&_offset=10&_limit=10", 10, 10), ("&_offset=15&_limit=10", 15, 10), ("&_offset=5&_limit=10", 5, 10)] {
                let target = "/drfnt?\(list)\(window)"
                let truth = MockDataset.array(Array(days[offset..<min(total, offset + count)]))
                let answer = try await stack.get(target)
                #expect(answer.status != 200 || answer.body == truth, "\(target): \(answer.status) \(answer.text.prefix(300))")
                // A walk failing after the NDJSON head cuts the stream (no last chunk): the read throws, an honest end.
                guard let lines = try? await stack.get(target + "&zz=n&_format=ndjson") else { continue }
                let truthLines = days[offset..<min(total, offset + count)].map { String(decoding: $0, as: UTF8.self) + "\n" }.joined()
                #expect(lines.status != 200 || lines.text == truthLines, "\(target) NDJSON: \(lines.status) \(lines.text.prefix(300))")
            }
        }
    }

    @Test("a client's offset over such a list: the items from it, the list's first page showing the repeat was the end")
    func aClientsOffset() async throws {
        try await TestStack.run(routes: SteppedBackWindowCornersTests.routes, mockOptions: SteppedBackWindowCornersTests.mockOptions) { stack in
            let answer = try await stack.get("/drfnt?mock_total=20&mock_past_end=last&offset=10")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 10, count: 10, total: 20), "\(answer.text.prefix(300))")
        }
    }

    @Test("an upstream that ignores the offset is still a 502, from the list's first page and from a client's offset",
          arguments: ["", "&mock_cap=4", "&offset=10", "&mock_past_end=last&offset=10"])
    func anIgnoredOffsetIsStillA502(cell: String) async throws {
        try await TestStack.run(routes: SteppedBackWindowCornersTests.routes, mockOptions: SteppedBackWindowCornersTests.mockOptions) { stack in
            let target = "/drfnt?mock_total=20&mock_ignores=offset" + cell
            let answer = try await stack.get(target)
            #expect(answer.status == 502, "\(target): \(answer.status) \(answer.text.prefix(300))")
        }
    }
}
