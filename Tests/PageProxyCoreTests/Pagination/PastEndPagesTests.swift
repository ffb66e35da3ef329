import Testing

@testable import PageProxyCore

/// The pages a walk reads that may lie past its list's end, as one value (fold24): which page is a check page, what the
/// page far past a repeat and the first page one position on say, and which failures there end the walk quietly.
@Suite struct PastEndPagesTests {
    private static func page(_ body: String, url: String = "http://api.test/items?offset=10") throws -> Page {
        let bytes = Array(body.utf8)
        return Page(
            number: 1, url: try #require(PageURL(string: url)), status: .ok, headers: HTTPHeaders(), body: bytes,
            items: try JSONScanner().scan(bytes, itemsAt: .root).items, values: [:])
    }

    private static func status(_ code: Int) throws -> PaginationError {
        let url = try #require(PageURL(string: "http://api.test/items?offset=90"))
        let body = UpstreamErrorBody(UpstreamResponse(status: HTTPStatus(code: code), headers: HTTPHeaders(), body: []))
        return .upstreamStatus(page: 4, url: url, status: code, body: body)
    }

    @Test("nothing asked: no page is a check page, and no failure ends the walk quietly")
    func nothingAsked() throws {
        let pastEnd = PastEndPages()
        let page = try Self.page("[1,2,3]")
        let failure = try Self.status(500)
        for index in 0..<4 {
            #expect(!pastEnd.isCheckAfterRepeat(index))
            #expect(!pastEnd.isStatedEndProbe(index))
            #expect(pastEnd.readFarCheck(page, at: index, isWholeList: true) == nil)
            #expect(try pastEnd.endsListAtShortFirstCheck(page, at: index) == false)
            #expect(!pastEnd.failureEndsAtRepeat(failure, at: index))
            #expect(!pastEnd.statusEndsQuietly(404, at: index, endStatuses: []))
            #expect(!pastEnd.failureEndsQuietly(failure, at: index))
        }
        #expect(!pastEnd.readsBytes(of: page, at: 1, mayRepeatAfter: false))
        #expect(!pastEnd.hasAskedStatedEndProbe)
    }

    @Test("the page far past a repeat: the repeat again there ends the list, anything else may be data that repeats")
    func theFarCheck() throws {
        var pastEnd = PastEndPages()
        pastEnd.askedFarCheck(at: 3, after: try Self.page("[21,22,23]"), listFirstPage: false)
        #expect(pastEnd.isCheckAfterRepeat(3) && !pastEnd.isCheckAfterRepeat(2))
        #expect(pastEnd.readsBytes(of: try Self.page("[1]"), at: 3, mayRepeatAfter: false))
        #expect(pastEnd.readFarCheck(try Self.page("[21,22,23]"), at: 3, isWholeList: false) == .listEnded)
        #expect(pastEnd.readFarCheck(try Self.page("[91,92,93]"), at: 3, isWholeList: false) == .mayBeCut)
        #expect(pastEnd.readFarCheck(try Self.page("[]"), at: 3, isWholeList: false) == .mayBeCut)
        #expect(pastEnd.failureEndsAtRepeat(try Self.status(500), at: 3))
        #expect(!pastEnd.failureEndsAtRepeat(.cancelled, at: 3))
    }

    @Test("the list's first page for a jump: the repeat there is an ignored page number, unless it is the whole list")
    func theListsFirstPage() throws {
        var pastEnd = PastEndPages()
        let repeated = try Self.page("[1,2,3]", url: "http://api.test/items?offset=40")
        pastEnd.askedFarCheck(at: 2, after: repeated, listFirstPage: true)
        let first = try Self.page("[1,2,3]", url: "http://api.test/items")
        #expect(pastEnd.readFarCheck(first, at: 2, isWholeList: false) == .pageNumberIgnored(repeatURL: repeated.url))
        #expect(pastEnd.readFarCheck(first, at: 2, isWholeList: true) == .listEnded)
        #expect(pastEnd.readFarCheck(try Self.page("[7,8,9]"), at: 2, isWholeList: false) == .listEnded)
    }

    @Test("the first page one position on: its second item first ends the list, anything else fails the walk")
    func theShortFirstCheck() throws {
        var pastEnd = PastEndPages()
        let first = try Self.page("[1,2,3]")
        pastEnd.askedShortFirstCheck(at: 2, after: first, items: ItemHashes(first))
        #expect(pastEnd.isCheckAfterRepeat(2))
        #expect(try pastEnd.endsListAtShortFirstCheck(try Self.page("[2,3]"), at: 2))
        #expect(try pastEnd.endsListAtShortFirstCheck(try Self.page("[2,3]"), at: 1) == false)
        #expect(throws: PaginationError.self) { try pastEnd.endsListAtShortFirstCheck(try Self.page("[1,2,3]"), at: 2) }
    }

    @Test("past a stated end: the page before again ends the list; a 404 there, or any failure of the probe, ends the walk")
    func pastAStatedEnd() throws {
        var pastEnd = PastEndPages()
        pastEnd.askedPastStatedEnd(at: 3, after: try Self.page("[28,29,30]"))
        #expect(pastEnd.hasAskedStatedEndProbe && pastEnd.isStatedEndProbe(3) && !pastEnd.isCheckAfterRepeat(3))
        #expect(pastEnd.readsBytes(of: try Self.page("[1]"), at: 3, mayRepeatAfter: false))
        #expect(pastEnd.repeatsPastStatedEnd(try Self.page("[28,29,30]"), at: 3))
        #expect(!pastEnd.repeatsPastStatedEnd(try Self.page("[31,32,33]"), at: 3))
        #expect(pastEnd.statusEndsQuietly(404, at: 3, endStatuses: []) && !pastEnd.statusEndsQuietly(500, at: 3, endStatuses: []))
        let failure = try Self.status(500)
        #expect(pastEnd.failureEndsQuietly(failure, at: 3))
        // A page linked past a total's last page: a 404 there agrees with the total; it is no probe.
        pastEnd.linkedPastStatedEnd(at: 5)
        #expect(pastEnd.statusEndsQuietly(404, at: 5, endStatuses: []))
        #expect(!pastEnd.failureEndsQuietly(failure, at: 5))
    }

    @Test("past a short page of a filtered list, the page after it is read, and the tail again ends the list")
    func pastAShortPage() throws {
        var pastEnd = PastEndPages()
        pastEnd.rememberShortPage(ItemHashes(try Self.page("[25,27,29]")))
        let tail = try Self.page("[23,25,27,29]")
        #expect(pastEnd.readsBytes(of: tail, at: 7, mayRepeatAfter: false))
        let endsList = try pastEnd.endsListAfterShortPage(tail, hashes: ItemHashes(tail))
        #expect(endsList)
        #expect(!pastEnd.readsBytes(of: tail, at: 8, mayRepeatAfter: false))
    }

    @Test("a page the scheme names is remembered, and the next holding its items again is the page before repeated")
    func thePageBeforeAgain() throws {
        var pastEnd = PastEndPages()
        let page = try Self.page("[21,22,23]")
        #expect(pastEnd.readsBytes(of: page, at: 2, mayRepeatAfter: true))
        let first = pastEnd.repeatsPageBefore(page, remember: true)
        let again = pastEnd.repeatsPageBefore(try Self.page("[21,22,23]"), remember: true)
        let other = pastEnd.repeatsPageBefore(try Self.page("[24,25,26]"), remember: false)
        #expect(!first && again && !other)
    }
}
