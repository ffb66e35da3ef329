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
