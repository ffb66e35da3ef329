import Testing

@testable import PageProxyCore

/// attack14 M6 / review21 F2: the second page's leading items that repeat the first page's last ones, counted only
/// when the first page's items are each unique.
@Suite struct FirstPageOverlapTests {
    private static func repeated(first: String, second: String) throws -> Int? {
        var overlap = FirstPageOverlap()
        let (firstPage, secondPage) = (try PageSplicingTests.page(first), try PageSplicingTests.page(second))
        overlap.remember(firstPage: firstPage, hashes: ItemHashes(firstPage), mayRepeat: 3)
        return overlap.repeated(in: ItemHashes(secondPage))
    }

    @Test func uniqueItemsThatComeAgainAreAnOverlap() throws {
        #expect(try Self.repeated(first: #"[{"id":1},{"id":2},{"id":3}]"#, second: #"[{"id":3},{"id":4}]"#) == 1)
        #expect(try Self.repeated(first: #"[{"id":1},{"id":2},{"id":3}]"#, second: #"[{"id":2},{"id":3},{"id":4}]"#) == 2)
        #expect(try Self.repeated(first: #"[{"id":1},{"id":2},{"id":3}]"#, second: #"[{"id":4},{"id":5}]"#) == 0)
    }

    @Test("a first page whose items are not each unique is not compared (nil: no overlap, and no cap shown)")
    func itemsThatAreNotUniqueAreNotCompared() throws {
        #expect(try Self.repeated(first: "[0,0,1,1,2,2]", second: "[2,3,3]") == nil)
        #expect(try Self.repeated(first: "[5,5,5]", second: "[5,6]") == nil)
    }
}
