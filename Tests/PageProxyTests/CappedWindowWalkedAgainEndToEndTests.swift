import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// real18 F4: a window over an offset upstream that caps its pages below the route's `limit` is walked again by the cap
/// from the multiple of the route's size below its offset, so `_max_pages` spent its pages before the window's first item.
@Suite struct CappedWindowWalkedAgainEndToEndTests {
    @Test("a window far past the route-size multiple gets its items within _max_pages (before: [] truncated)")
    func aWindowPastTheMultipleGetsItsItems() async throws {
        try await TestStack.run { stack in
            // Cap 3 under the route's 10: the jump to offset 30 holds 3, and the window is walked again by 3. From 30,
            // two pages hold 31…36, none of the window's 39…41; from 35 (one page before 38), 36…41.
            for round in 0..<2 {
                let answer = try await stack.get("/drf?mock_total=100&mock_cap=3&_offset=38&_limit=3&_max_pages=2")
                #expect(answer.status == 200, "\(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.page(offset: 38, count: 3, total: 100), "round \(round): \(answer.text.prefix(300))")
                #expect(answer.header("PageProxy-Truncated") == nil, "round \(round)")
            }
        }
    }
}
