import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// retest19 F2: a window just past the end of an offset list with no total, whose upstream caps its pages below the
/// route's `limit`, was walked again by the cap from one served page before its offset; that page held the list's last
/// few items, fewer than the cap, so the walk again missed its size too, declined, and the client got a 500
/// `internal_error` ("a walk that may fetch declined its answer") where the list's end is `200 []`.
@Suite struct WindowJustPastCappedEndEndToEndTests {
    // 247 items, cap 7 under the route's 10: the jump to 240 holds 7 (240…246), short of 10, so the window is walked
    // again by 7 from one page of 7 before its offset (241…246 for offset 248): 6, short of 7 with the list going on.
    static let capped = "mock_total=247&mock_cap=7"

    @Test("a window past a capped no-total list's end by less than the cap is 200 [] (before: 500 internal_error)", arguments: [
        "_offset=248&_limit=3", "_offset=249&_limit=11", "_offset=249&_limit=3&_format=ndjson",
    ])
    func aWindowJustPastTheEndIsEmpty(window: String) async throws {
        try await TestStack.run { stack in
            // Twice: the second request walks by the plan the first one remembered.
            for round in 0..<2 {
                let answer = try await stack.get("/offset?\(Self.capped)&\(window)")
                #expect(answer.status == 200, "round \(round): \(answer.text.prefix(300))")
                #expect(answer.text.trimmingCharacters(in: .whitespacesAndNewlines) == (window.hasSuffix("ndjson") ? "" : "[]"),
                    "round \(round): \(answer.text.prefix(300))")
                #expect(answer.header("PageProxy-Truncated") == nil, "round \(round)")
            }
        }
    }

    @Test("a window that ends just past the capped list's end holds the list's last items")
    func aWindowOverTheEndHoldsTheLastItems() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/offset?\(Self.capped)&_offset=245&_limit=5")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            let truth = try await stack.get("/offset?mock_total=247&_offset=245&_limit=5")
            #expect(answer.body == truth.body, "\(answer.text.prefix(300)) vs \(truth.text.prefix(300))")
            #expect(answer.header("PageProxy-Items") == "2")
        }
    }
}
