import Testing

@testable import PageProxyCore

/// review21 LOW 3: where a walk stands against the client's window and the route's `maxPages`, as one value: the cap
/// that cuts it, what each cap counts, and the one page asked past `maxPages`.
@Suite struct WalkStandingTests {
    private static func standing(maxPages: Int = 10, pageLimit: Int? = nil, onceFiltered: Int? = nil, fromWalkStart: Bool = false)
        -> WalkStanding
    {
        var options = PageWalker.Options()
        options.maxPages = maxPages
        options.pageLimit = pageLimit
        options.pageLimitOnceFiltered = onceFiltered
        options.windowFromWalkStart = fromWalkStart
        return WalkStanding(options)
    }

    private static func known(_ all: Int, askedAgain: Int = 0) -> WalkStanding.Known {
        WalkStanding.Known(all: all, askedAgain: askedAgain)
    }

    /// Whether `body` threw `tooManyPages` at 3.
    private static func refused(_ body: () throws(PaginationError) -> Void) -> Bool {
        do throws(PaginationError) {
            try body()
            return false
        } catch {
            if case .tooManyPages(3) = error { return true }
            return false
        }
    }

    @Test("a window from the walk's start is cut by its page count, then by maxPages once a filter lifts it, then fails there")
    func aLiftedWindowIsCutAtMaxPages() {
        var standing = Self.standing(maxPages: 10, pageLimit: 2, fromWalkStart: true)
        #expect(standing.pageCap == 2)
        #expect(standing.cutAtPageCap(5, known: Self.known(1)) == 1)
        #expect(!standing.isCutAtMaxPages)
        standing.liftWindowPages()
        #expect(standing.windowCount == .lifted)
        #expect(standing.pageCap == 10)
        // Counted as `maxPages` counts: the pages asked again while stepping are not.
        #expect(standing.cutAtPageCap(9, known: Self.known(3, askedAgain: 2)) == nil)
        #expect(standing.cutAtPageCap(100, known: Self.known(3)) == 7)
        #expect(standing.isCutAtMaxPages)
        // Lifting again changes nothing.
        standing.liftWindowPages()
        #expect(standing.isCutAtMaxPages)
    }

    @Test("a window that jumped, or a walk with no window, is never lifted by a filter")
    func onlyAWindowFromTheWalkStartIsLifted() {
        var standing = Self.standing(maxPages: 10, pageLimit: 2)
        standing.liftWindowPages()
        #expect(standing.windowCount == .counted)
        #expect(standing.pageCap == 2)
        #expect(standing.cutAtPageCap(100, known: Self.known(1)) == 1)
        #expect(!standing.isCutAtMaxPages)
    }

    @Test("one page known only from the page before is asked past maxPages, once; an item on it fails the walk")
    func onePagePastMaxPages() throws {
        var standing = Self.standing(maxPages: 3)
        #expect(standing.hasRoomUnderMaxPages(Self.known(2)))
        #expect(!standing.hasRoomUnderMaxPages(Self.known(3)))
        try standing.charge(1, small: nil, known: Self.known(3), pastMaxPagesIndex: 3)
        #expect(standing.failsPastMaxPages(itemCount: 1, at: 3))
        #expect(!standing.failsPastMaxPages(itemCount: 0, at: 3))
        #expect(!standing.failsPastMaxPages(itemCount: 1, at: 2))
        let second = Self.refused { () throws(PaginationError) in try standing.charge(1, small: nil, known: Self.known(4), pastMaxPagesIndex: 4) }
        #expect(second)
        // Pages numbered ahead, or a check page (no index), are refused at once.
        var numbered = Self.standing(maxPages: 3)
        let ahead = Self.refused { () throws(PaginationError) in try numbered.charge(2, small: nil, known: Self.known(2), pastMaxPagesIndex: nil) }
        #expect(ahead)
    }

    @Test("a check page past a full stated end needs room under both maxPages and the client's cap")
    func roomForTheCheckPage() {
        let standing = Self.standing(maxPages: 10, pageLimit: 3)
        #expect(standing.hasRoomForCheckPage(Self.known(2)))
        #expect(!standing.hasRoomForCheckPage(Self.known(3)))
        #expect(!Self.standing(maxPages: 3).hasRoomForCheckPage(Self.known(3)))
        #expect(Self.standing(maxPages: 3).hasRoomForCheckPage(Self.known(4, askedAgain: 2)))
    }
}
