import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Offset windows over an upstream that caps its pages (`mock_cap`) and answers past its end with its last page as it
/// cuts its pages (`mock_past_end=last`: Django's `get_page()` behind an offset facade): the check page past a stated end
/// then holds only the page before's last items again (attack20 A/B/E: an item twice, or one past a true total).
@Suite struct OffsetWindowAlignedClampEndToEndTests {
    @Test("a window holds each item once, and none past the list", arguments: [
        ("mock_total=37&mock_cap=3", 13, 50, 37),
        ("mock_total=25&mock_cap=3", 25, 10, 25),
        ("mock_total=37&mock_cap=9", 13, 50, 37),
        ("mock_total=10&mock_cap=3&mock_count_percent=90", 5, 10, 10),
        // A window's short page at the total, then the clamped last page holding it (retest20: item 41 twice).
        ("mock_total=41&mock_cap=6", 40, 20, 41),
        ("mock_total=31&mock_cap=4", 30, 20, 31),
    ])
    func aWindowHoldsEachItemOnce(habits: String, offset: Int, limit: Int, total: Int) async throws {
        try await TestStack.run { stack in
            let target = "/drf?\(habits)&mock_past_end=last&_offset=\(offset)&_limit=\(limit)"
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: offset, count: limit, total: total), "\(target): \(answer.text.prefix(300))")
            let lines = try await stack.get(target + "&_format=ndjson")
            let expected = MockDataset.items(total: total).dropFirst(offset).prefix(limit).map { $0 + [0x0A] }.joined()
            #expect(lines.body == Array(expected), "\(target) ndjson: \(lines.text.prefix(300))")
        }
    }
}

/// Items with no id that repeat on their own (`mock_period=3`) past a stated total that is too low: the page past the
/// total ends with items the page before ended with, and is no repeat of it (review20 H1: 20 of 23 items under a 200).
@Suite struct PeriodicItemsPastALowTotalEndToEndTests {
    @Test("every item past a low total is kept when the items repeat on their own")
    func periodicItemsPastALowTotal() async throws {
        try await TestStack.run { stack in
            let expected = (0..<23).map { Array("{\"day\":\($0 % 3)}".utf8) }
            let answer = try await stack.get("/drf?mock_total=23&mock_period=3&mock_count_percent=80")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.array(expected), "\(answer.text.prefix(400))")
            let lines = try await stack.get("/drf?mock_total=23&mock_period=3&mock_count_percent=80&_format=ndjson")
            #expect(lines.body == Array(expected.map { $0 + [0x0A] }.joined()), "\(lines.text.prefix(400))")
        }
    }
}

/// An offset window whose jumped page, capped short of the `limit`, ends exactly at a stated total that is too low
/// (attack20 F): the page past the total is asked, as after a full page there, and the window holds what the merged
/// answer holds.
@Suite struct OffsetWindowCappedAtLowTotalEndToEndTests {
    @Test("the window goes on past a low total its capped page ended at", arguments: [
        ("mock_total=20&mock_cap=7&mock_count_percent=85", 13, 100),
        ("mock_total=20&mock_cap=7&mock_count_percent=85", 12, 100),
        ("mock_total=20&mock_cap=9&mock_count_percent=95", 13, 20),
    ])
    func theWindowGoesOnPastALowTotal(habits: String, offset: Int, limit: Int) async throws {
        try await TestStack.run { stack in
            let target = "/drf?\(habits)&_offset=\(offset)&_limit=\(limit)"
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: offset, count: limit, total: 20), "\(target): \(answer.text.prefix(300))")
        }
    }

    @Test("a window at the end of an honest list is still its last items, with no link on")
    func anHonestLastWindow() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/drf?mock_total=45&_offset=40&_limit=10")
            #expect(answer.status == 200)
            #expect(answer.body == MockDataset.page(offset: 40, count: 10, total: 45))
            #expect(answer.header("Link")?.contains("rel=\"next\"") != true, "\(answer.header("Link") ?? "-")")
        }
    }
}
