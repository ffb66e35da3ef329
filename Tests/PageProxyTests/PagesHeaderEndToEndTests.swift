import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// pagenum18/offset18's question: `PageProxy-Pages` counts a page that adds no item (the empty page past a full last
/// page, a repeat of the last page past the end, the check page far past that repeat). README says what it counts: the
/// pages the walk read, the same ones `PageProxy-Cache` gives the outcomes of (and `_explain` lists), not the pages
/// the items came from; so it counts them. This pins that meaning: the two headers agree.
@Suite struct PagesHeaderEndToEndTests {
    @Test("PageProxy-Pages is the pages the walk read, each in PageProxy-Cache: with an empty page past the end, and with a repeat and its check page",
          arguments: [("/plain?mock_total=30", 4), ("/plain?mock_total=30&mock_past_end=last", 5), ("/plain?mock_total=25", 3)])
    func pagesCountsEveryPageRead(target: String, pages: Int) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Items") == String(target.contains("25") ? 25 : 30))
            #expect(answer.header("PageProxy-Pages") == String(pages), "\(stack.mock.log.requests.map(\.target))")
            let outcomes = (answer.header("PageProxy-Cache") ?? "").split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
            #expect(outcomes.reduce(0, +) == pages, "\(answer.header("PageProxy-Cache") ?? "-")")
            #expect(stack.mock.log.count == pages)
        }
    }
}
