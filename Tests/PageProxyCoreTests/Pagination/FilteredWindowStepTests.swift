import Testing

@testable import PageProxyCore

/// offset20: after a first page that hid more than half its window, the walk steps by the positions its pages show the
/// upstream's window holds at least (each id below stands for an item's hash), never past a cap below the `limit`.
@Suite struct FilteredWindowStepTests {
    /// A step started at the second page asked again at offset 2 (limit 10), holding `ids`, the first `repeated` the
    /// first page's again.
    private static func started(_ ids: [UInt64], repeated: Int) -> FilteredWindowStep {
        var step = FilteredWindowStep()
        step.start(hashes: ItemHashes(ids), offset: 2, firstOffset: 0, repeated: repeated, limit: 10)
        return step
    }

    @Test("the known size grows with each overlap and never passes the cap (7 under a limit of 10, every 3rd id shown)")
    func theBoundGrowsToTheCap() throws {
        // First page 3, 6 (offset 0, capped at 7); asked again at 2: 3, 6, 9, the first two again: at least 4 positions.
        var step = Self.started([3, 6, 9], repeated: 2)
        #expect(step.bound == 4)
        // At 6: positions 7…13, ids 9, 12: 9 again, 4 + 1.
        #expect(try step.read(hashes: ItemHashes([9, 12]), offset: 6, limit: 10, page: 4) == .continues(repeated: 1))
        #expect(step.bound == 5)
        #expect(try step.read(hashes: ItemHashes([12, 15, 18]), offset: 11, limit: 10, page: 5) == .continues(repeated: 1))
        #expect(step.bound == 6)
        #expect(try step.read(hashes: ItemHashes([18, 21, 24]), offset: 17, limit: 10, page: 6) == .continues(repeated: 1))
        #expect(step.bound == 7)
        // At 24: 27, 30, nothing again: still 7, the cap.
        #expect(try step.read(hashes: ItemHashes([27, 30]), offset: 24, limit: 10, page: 7) == .continues(repeated: 0))
        #expect(step.bound == 7)
    }

    /// review20 M5: the positions the stepping asks again, in pages of the `limit`, which the route's `maxPages` does not count.
    @Test("the pages asked again while stepping: the second page inside the first's window, and each step's overlap")
    func thePagesAskedAgain() throws {
        // The second page lay inside the first's 10 positions; asked again at 2, 8 of its positions the first's: 18.
        var step = Self.started([3, 6, 9], repeated: 2)
        #expect(step.pagesAskedAgain == 1)
        // Stepped by 4, 5 and 6 with the limit 10: 6, 5 and 4 positions again (24, 29, 33).
        _ = try step.read(hashes: ItemHashes([9, 12]), offset: 6, limit: 10, page: 4)
        #expect(step.pagesAskedAgain == 2)
        _ = try step.read(hashes: ItemHashes([12, 15, 18]), offset: 11, limit: 10, page: 5)
        #expect(step.pagesAskedAgain == 2)
        _ = try step.read(hashes: ItemHashes([18, 21, 24]), offset: 17, limit: 10, page: 6)
        #expect(step.pagesAskedAgain == 3)
    }

    @Test("a size shown to be the limit ends the stepping: the walk steps by the limit again")
    func theLimitEndsIt() throws {
        var step = Self.started([6, 9, 12], repeated: 2)
        #expect(step.bound == 4)
        // Each page 4, 6, 8 on from the page before, holding its last 2 again: at least 6, 8, 10 positions.
        #expect(try step.read(hashes: ItemHashes([9, 12, 15]), offset: 6, limit: 10, page: 4) == .continues(repeated: 2))
        #expect(step.bound == 6)
        #expect(try step.read(hashes: ItemHashes([12, 15, 18]), offset: 12, limit: 10, page: 5) == .continues(repeated: 2))
        #expect(step.bound == 8)
        #expect(try step.read(hashes: ItemHashes([15, 18, 21]), offset: 20, limit: 10, page: 6) == .continues(repeated: 2))
        #expect(step.bound == nil)
    }

    @Test("the list's tail again past its end ends the list; items of the page before after new ones fail")
    func theTailAgainAndAShift() throws {
        // The page before holds 27, 30 (the list's last); past the end, the upstream's last page of 10: 21 … 30.
        var tail = Self.started([3, 6, 9], repeated: 2)
        #expect(try tail.read(hashes: ItemHashes([27, 30]), offset: 6, limit: 10, page: 4) == .continues(repeated: 0))
        #expect(try tail.read(hashes: ItemHashes([21, 24, 27, 30]), offset: 10, limit: 10, page: 5) == .tailAgain)
        var shifted = Self.started([3, 6, 9], repeated: 2)
        #expect(throws: PaginationError.self) { try shifted.read(hashes: ItemHashes([12, 9, 15]), offset: 6, limit: 10, page: 4) }
    }

    @Test("items not each unique, or a window already known to hold the limit, are not stepped by")
    func whatIsNotStepped() throws {
        #expect(Self.started([3, 3, 9], repeated: 0).bound == nil)
        var full = FilteredWindowStep()
        full.start(hashes: ItemHashes([1, 2, 3]), offset: 8, firstOffset: 0, repeated: 2, limit: 10)
        #expect(full.bound == nil)
        var step = Self.started([3, 6, 9], repeated: 2)
        #expect(try step.read(hashes: ItemHashes([9, 9]), offset: 6, limit: 10, page: 4) == .continues(repeated: 0))
        #expect(step.bound == nil)
    }

    @Test("an upstream serving its own size (7) over a limit of 5: stepped by what it served, the one item again dropped")
    func anOwnSizeIsSteppedByWhatItServed() throws {
        // First page at 0: positions 0…6, id 4 hidden: 6 items for a limit of 5.
        var step = FilteredWindowStep()
        step.start(ownSize: ItemHashes([1, 2, 3, 5, 6, 7]), offset: 0)
        #expect(step.bound == 6 && step.servesOwnSize)
        // At 6: positions 6…12, ids 8 and 12 hidden: 7 again (dropped), and the window holds at least 7.
        #expect(try step.read(hashes: ItemHashes([7, 9, 10, 11, 13]), offset: 6, limit: 5, page: 2) == .continues(repeated: 1))
        #expect(step.bound == 7)
        // The limit asked (5) is no end to the stepping: the upstream serves its own size.
        #expect(try step.read(hashes: ItemHashes([14, 15, 17, 18, 19]), offset: 13, limit: 5, page: 3) == .continues(repeated: 0))
        #expect(step.bound == 7)
        // Items not each unique: the overlap cannot be seen, the walk fails.
        #expect(throws: PaginationError.self) { try step.read(hashes: ItemHashes([21, 21]), offset: 20, limit: 5, page: 4) }
        var repeating = FilteredWindowStep()
        repeating.start(ownSize: ItemHashes([1, 1, 2]), offset: 0)
        #expect(repeating.bound == nil && !repeating.servesOwnSize)
    }
}
