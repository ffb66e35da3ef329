import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A `page-number` route with no total over an upstream that answers any page past its end with its last page
/// (Django's `Paginator.get_page()`, the mock's `mock_past_end=last`): a window at or past the end is `[]` with no
/// `rel="next"` (attack20 I: it answered the last page's items again, linking on for ever).
@Suite struct PageNumberWindowPastEndEndToEndTests {
    @Test("a window at or past the end is empty, and links on no more", arguments: [(20, 10), (30, 5), (40, 1), (24, 1), (37, 10)])
    func aWindowPastTheEndIsEmpty(offset: Int, limit: Int) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/plain?mock_total=20&per_page=10&mock_past_end=last&_offset=\(offset)&_limit=\(limit)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == Array("[]".utf8), "\(offset)+\(limit): \(answer.text.prefix(200))")
            #expect(answer.header("Link")?.contains("rel=\"next\"") != true, "\(answer.header("Link") ?? "-")")
            let lines = try await stack.get("/plain?mock_total=20&per_page=10&mock_past_end=last&_offset=\(offset)&_limit=\(limit)&_format=ndjson")
            #expect(lines.status == 200)
            #expect(lines.body.isEmpty, "\(lines.text.prefix(200))")
        }
    }

    @Test("windows within the list, or crossing its end, hold their own items", arguments: [(0, 10), (10, 20), (15, 10), (10, 10), (19, 1)])
    func windowsWithinTheListHoldTheirItems(offset: Int, limit: Int) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/plain?mock_total=20&per_page=10&mock_past_end=last&_offset=\(offset)&_limit=\(limit)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: offset, count: limit, total: 20), "\(offset)+\(limit): \(answer.text.prefix(200))")
        }
    }
}
