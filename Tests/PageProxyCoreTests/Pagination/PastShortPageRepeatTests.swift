import Testing

@testable import PageProxyCore

/// review27 R4: past a short page of a list that showed a filter, the page after it is compared with the short page's
/// items: the list's tail again ends the list, items of it followed by others fail the walk, new items go on.
@Suite struct PastShortPageRepeatTests {
    /// What the page after `short` is: true (the list's tail again), false (new items), nil (the walk fails).
    private static func verdict(after short: String, on next: String) throws -> Bool? {
        var past = PastShortPageRepeat()
        past.remember(shortPage: ItemHashes(try PageSplicingTests.page(short)))
        let page = try PageSplicingTests.page(next)
        do throws(PaginationError) {
            return try past.endsList(at: page, hashes: ItemHashes(page))
        } catch {
            return nil
        }
    }

    @Test("the list's tail again ends the list: the short page again, or the upstream's last page reaching into the page before it")
    func theTailAgainEndsTheList() throws {
        #expect(try Self.verdict(after: "[25,26,27,29,30]", on: "[25,26,27,29,30]") == true)
        // Every 3rd id of 30 shown, stepped by 10 from offset 13: the short page at 23 holds 24, 27, 30; the upstream's
        // last page of 10 (offset 20) 21, 24, 27, 30 (21 is of the page before the short one).
        #expect(try Self.verdict(after: "[24,27,30]", on: "[21,24,27,30]") == true)
    }

    @Test("items of the short page, then others: the list shifted or the offset is not read, and the walk fails")
    func aShiftFails() throws {
        #expect(try Self.verdict(after: "[5,6,7]", on: "[7,8,9]") == nil)
        #expect(try Self.verdict(after: "[5,6,7]", on: "[6,7,8]") == nil)
    }

    @Test("no failure and no end: new items, items not each unique, an empty page")
    func whatGoesOn() throws {
        #expect(try Self.verdict(after: "[5,6,7]", on: "[9,10]") == false)
        #expect(try Self.verdict(after: "[5,5,7]", on: "[5,7]") == false)
        #expect(try Self.verdict(after: "[5,6,7]", on: "[]") == false)
    }

    @Test("only the page right after the short one is compared")
    func onlyThePageAfter() throws {
        var past = PastShortPageRepeat()
        past.remember(shortPage: ItemHashes(try PageSplicingTests.page("[5,6,7]")))
        #expect(past.isArmed)
        let other = try PageSplicingTests.page("[9]")
        #expect(try past.endsList(at: other, hashes: ItemHashes(other)) == false)
        #expect(!past.isArmed)
        let shortAgain = try PageSplicingTests.page("[5,6,7]")
        #expect(try past.endsList(at: shortAgain, hashes: ItemHashes(shortAgain)) == false)
    }
}
