import Testing

@testable import PageProxyCore

/// review26 L1: a page after a short first page that starts with the tail of the page before (two items or more) fails
/// the walk, the second page too (retest19 F1); one shared item, an item equal to one inside the page before, the second
/// page without a filtered first page's items it holds again, and a page asked again at the same offset do not.
@Suite struct SteppedPageOverlapTests {
    /// Whether `pages` (bodies, offsets), checked in turn from index 0, fail.
    private static func fails(_ pages: [(String, Int)]) throws -> Bool {
        var overlap = SteppedPageOverlap()
        for (index, (body, offset)) in pages.enumerated() {
            let page = try PageSplicingTests.page(body)
            do throws(PaginationError) {
                try overlap.check(page, arrived: ItemHashes(page), index: index, offset: offset)
            } catch {
                return true
            }
        }
        return false
    }

    @Test func aPageLedByThePageBeforesTailFails() throws {
        // The second page too (retest19 F1: a 2-page walk, its last page the first's last items again).
        #expect(try Self.fails([("[1,2,4,5,7]", 0), ("[5,7]", 5)]))
        #expect(try Self.fails([("[1,2,3]", 0), ("[5,6,7]", 3), ("[6,7,9]", 6)]))
        #expect(try Self.fails([("[1,2,3]", 0), ("[5,6,7]", 3), ("[6,7]", 6)]))
    }

    @Test("one item shared at a boundary is no overlap: a sorted list with no id holds equal neighbours (review27 R3)")
    func oneSharedItemPasses() throws {
        // Scores sorted down, the two 7s split across the boundary. Before: a 502 blaming `limit`.
        #expect(try !Self.fails([("[12,11,10]", 0), ("[9,8,7]", 3), ("[7,6,5]", 6)]))
        #expect(try !Self.fails([("[1,2,3]", 0), ("[5,6,7]", 3), ("[7]", 6)]))
        // Two shared items still fail.
        #expect(try Self.fails([("[12,11,10]", 0), ("[9,8,7]", 3), ("[8,7,5]", 6)]))
    }

    @Test("the page before as it arrived: the third page may reach back into the second's items of the first, dropped")
    func theSecondPageAsItArrived() throws {
        // Every 3rd id of 10 shown, `limit` ignored: the first page [3, 6, 9], the second at offset 3 [6, 9, 12] kept
        // as [12], the third at offset 6 [9, 12, 15].
        var overlap = SteppedPageOverlap()
        try overlap.check(try PageSplicingTests.page("[3,6,9]"), arrived: try Self.hashes("[3,6,9]"), index: 0, offset: 0)
        try overlap.check(try PageSplicingTests.page("[12]"), arrived: try Self.hashes("[6,9,12]"), index: 1, offset: 3)
        let third = try PageSplicingTests.page("[9,12,15]")
        #expect(throws: PaginationError.self) { try overlap.check(third, arrived: ItemHashes(third), index: 2, offset: 6) }
    }

    @Test("no failure: pages that follow each other, an equal item inside the page before, the second page, a page asked again")
    func whatIsNoOverlap() throws {
        #expect(try !Self.fails([("[1,2,3]", 0), ("[5,6,7]", 3), ("[9,10]", 6)]))
        // 6 is inside the page before, but 7 does not follow it.
        #expect(try !Self.fails([("[1,2,3]", 0), ("[5,6,7]", 3), ("[6,8]", 6)]))
        // The second page repeats a filtered first page's last items by design (`FirstPageOverlap`): checked as kept.
        var overlap = SteppedPageOverlap()
        try overlap.check(try PageSplicingTests.page("[1,2,3]"), arrived: try Self.hashes("[1,2,3]"), index: 0, offset: 0)
        try overlap.check(try PageSplicingTests.page("[4]"), arrived: try Self.hashes("[2,3,4]"), index: 1, offset: 3)
        // The second page asked again with the first's limit, at the same offset (the second kept as none: it lay inside
        // the first's window).
        var again = SteppedPageOverlap()
        let pages = [("[1,2,3]", "[1,2,3]", 0), ("[]", "[3]", 2), ("[3,5,6]", "[3,5,6]", 2), ("[8,9]", "[8,9]", 12)]
        for (index, (kept, arrived, offset)) in pages.enumerated() {
            try again.check(try PageSplicingTests.page(kept), arrived: try Self.hashes(arrived), index: index, offset: offset)
        }
        // Items not each unique are not compared.
        #expect(try !Self.fails([("[1,2,3]", 0), ("[5,5,7]", 3), ("[5,7,9]", 6)]))
    }

    /// The hashes of the items of the page `json` as it arrived.
    private static func hashes(_ json: String) throws -> ItemHashes {
        ItemHashes(try PageSplicingTests.page(json))
    }
}
