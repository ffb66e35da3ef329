import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// retest17 W1: an `offset` upstream capping its pages (7 under the route's 10) and stating a total too high (33 of
/// 30): a window whose walk ends short of that total, with items past the window on its last page, links on.
@Suite struct WindowShortOfTotalScrollEndToEndTests {
    private static let highAndCapped = "mock_total=30&mock_count_percent=110&mock_cap=7"

    @Test("a scroll by windows over a capped upstream with a high total reaches all 30 items (before: it stopped at 27 or 26)",
          arguments: ["json", "ndjson"], [9, 13])
    func aScrollReachesEveryItem(format: String, size: Int) async throws {
        try await TestStack.run { stack in
            // A fresh walk, then the same scroll over the pages a JSON scroll cached (retest17 scrolled JSON first).
            for (round, asked) in [format, "json", format].enumerated() {
                let ids = try await Self.scroll(stack, format: asked, size: size)
                #expect(ids == Array(1...30), "\(asked) by \(size), round \(round): \(ids)")
            }
        }
    }

    /// The items of a scroll by windows of `size` following `rel="next"` from the first window.
    private static func scroll(_ stack: TestStack, format: String, size: Int) async throws -> [Int] {
        var ids: [Int] = []
        var offset = 0
        for _ in 0..<10 {
            let answer = try await stack.get("/drf?\(highAndCapped)&_format=\(format)&_offset=\(offset)&_limit=\(size)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            ids += Self.ids(in: answer.text)
            guard (answer.header("Link") ?? "").contains("rel=\"next\"") else { break }
            offset += size
        }
        return ids
    }

    @Test("the window 18–26 links on to 27 (before: no next, though 28–30 were on its last page)")
    func theWindowBeforeTheEndLinksOn() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/drf?\(Self.highAndCapped)&_offset=18&_limit=9")
            #expect(answer.body == MockDataset.page(offset: 18, count: 9, total: 30), "\(answer.text.prefix(300))")
            #expect((answer.header("Link") ?? "").contains("_offset=27&_limit=9>; rel=\"next\""), "\(answer.header("Link") ?? "-")")
        }
    }

    /// The `id` of each item, in order (the mock's items carry no other `"id"` member).
    private static func ids(in text: String) -> [Int] {
        text.components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }
}
