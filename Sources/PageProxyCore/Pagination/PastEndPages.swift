/// The pages a walk reads that may lie past its list's end, and what each says: the upstream's habit there (its last
/// page again, a page far past that holds it again, the list's tail again, a 404 past a stated end) or more of the list.
/// The walker holds one of these and asks it (each check was a loose field of the walker, added by its own fix and read
/// in several places: `pastEnd`, `clampCheck`, `shortRepeat`, `pastShort`, `probe` and `awaitsRepeatCheck`).
///
/// Its parts, each a rule with its why:
/// - `repeatOfPageBefore` (`PastEndRepeat`; review14 F13, walk18): in a walk PageProxy numbers itself with no total, a
///   page that holds the page before's items again is past the end, and is dropped.
/// - `farCheck` (`PastEndClampCheck`; walk18, retest14 M1): after such a repeat, one page far past tells the upstream's
///   habit (the same items again: the list is whole) from data that repeats with the page size (the answer may be cut);
///   for a window's jump repeated at once, the list's first page (an upstream that ignores the page number; attack20 W).
/// - `shortFirstCheck` (`ShortFirstPageRepeat`; retest21 LOW B): after a short first page repeated at once, the first
///   page asked one position on tells a repeat-last upstream (the list is that page) from one that ignores the offset.
/// - `afterShort` (`PastShortPageRepeat`; review27 R4): past a short page of a list that showed a filter, the list's tail
///   again ends the list.
/// - `statedEnd` (`StatedEndProbe`; review17 B10, retest15 N4, review21 F1, review22 H2): the pages asked or linked past
///   a stated end; the page before again there ends the list, and a 404 there, or any failure of the probe, ends the walk
///   at the total.
///
/// Every check page here is asked at most once a walk, and only after what called for it; it counts against `maxPages`
/// alone (`WalkStanding.hasRoomUnderMaxPages`, asked by the walker).
struct PastEndPages {
    private var repeatOfPageBefore = PastEndRepeat()
    private var farCheck = PastEndClampCheck()
    private var shortFirstCheck = ShortFirstPageRepeat()
    private var afterShort = PastShortPageRepeat()
    private var statedEnd = StatedEndProbe()

    /// What the page far past a repeat (`PastEndClampCheck`) says.
    enum FarCheckReading: Equatable {
        /// The list ended before the repeat: the answer is whole.
        case listEnded
        /// Nothing tells the upstream's habit from data that repeats with the page size: the walk ends at the repeat, and
        /// the answer may be cut (`PageWalker.endedOnRepeat`).
        case mayBeCut
        /// The list's first page, asked for a window's jump, held the repeated items again and is not the whole list: an
        /// upstream that ignores the page number, named by the repeat's URL.
        case pageNumberIgnored(repeatURL: PageURL)
    }

    /// Whether the checks read the bytes of `page`, at `index` (a body the cache left in its file is read first for them);
    /// `mayRepeatAfter`: whether the scheme names `page` as one the next may repeat past the end
    /// (`PaginationStrategy.mayRepeatPastEnd`), worked out only when no other check reads it.
    func readsBytes(of page: Page, at index: Int, mayRepeatAfter: @autoclosure () -> Bool) -> Bool {
        repeatOfPageBefore.readsBytes(of: page, keep: mayRepeatAfter()) || statedEnd.readsBytes(ofPageAt: index)
            || isCheckAfterRepeat(index) || afterShort.isArmed
    }

    /// Whether the page at `index` is the check page asked after a repeat (far past it, or the first page one position
    /// on): the walk may yet end or fail there, with the repeat dropped (review21 MEDIUM 2: an NDJSON window past a
    /// repeat-last upstream's end linked on for ever).
    func isCheckAfterRepeat(_ index: Int) -> Bool { farCheck.isCheck(index) || shortFirstCheck.isCheck(index) }

    // MARK: The page read

    /// Whether `page`, at `index`, asked past a full page at the stated end, holds that page's items again (or its tail):
    /// the list ends before it (Django's `get_page()` past the end; review21 F1).
    func repeatsPastStatedEnd(_ page: Page, at index: Int) -> Bool { statedEnd.isRepeat(page, at: index) }

    /// What `page` says when it is the page far past a repeat, at `index`; nil when it is not that page. `isWholeList`:
    /// whether `page`, the list's first, is the whole list (worked out only when the list's first page repeated).
    func readFarCheck(_ page: Page, at index: Int, isWholeList: @autoclosure () -> Bool) -> FarCheckReading? {
        guard farCheck.isCheck(index) else { return nil }
        let repeatedThere = farCheck.showsLastPageRepeated(page)
        if farCheck.isListFirstPage {
            // The list's first page that is the whole list (short of its size, or holding the stated total) repeated
            // past the end is that list's end, whichever it is (attack20 W: 9 items of a `limit` of 10).
            guard repeatedThere, !isWholeList() else { return .listEnded }
            return .pageNumberIgnored(repeatURL: farCheck.repeatURL ?? page.url)
        }
        return repeatedThere ? .listEnded : .mayBeCut
    }

    /// Whether `page`, at `index`, is the first page asked one position on after a short first page repeated, and starts
    /// with that page's second item (an upstream that reads the offset: the list is the first page); throws when it is
    /// that page and does not (an upstream that ignores the offset).
    func endsListAtShortFirstCheck(_ page: Page, at index: Int) throws(PaginationError) -> Bool {
        guard shortFirstCheck.isCheck(index) else { return false }
        guard shortFirstCheck.showsPositionRead(page) else {
            throw IgnoredPageNumber.failure(secondPage: shortFirstCheck.repeatURL ?? page.url)
        }
        return true
    }

    /// Whether `page` is the list's tail again past a short page remembered (`rememberShortPage`); throws when it holds
    /// some of its items then others. `hashes`: its items' as it arrived (nil: its body is in its file), worked out only
    /// when a short page was remembered.
    mutating func endsListAfterShortPage(_ page: Page, hashes: @autoclosure () -> ItemHashes?) throws(PaginationError) -> Bool {
        try afterShort.endsList(at: page, hashes: hashes())
    }

    /// Whether `page` holds the page before's items again, past the list's end; `page` is remembered for the next page
    /// when `remember` (`PaginationStrategy.mayRepeatPastEnd`).
    mutating func repeatsPageBefore(_ page: Page, remember: Bool) -> Bool {
        repeatOfPageBefore.isRepeat(page, keep: remember)
    }

    // MARK: The pages asked

    /// The page far past `repeatedPage` (or the list's first page, `listFirstPage`) is asked at `index`.
    mutating func askedFarCheck(at index: Int, after repeatedPage: Page, listFirstPage: Bool) {
        farCheck.asked(at: index, after: repeatedPage, listFirstPage: listFirstPage)
    }

    /// The first page one position on is asked at `index`, after `repeated`, the second page holding the short first
    /// page's items (`items`, two or more) again.
    mutating func askedShortFirstCheck(at index: Int, after repeated: Page, items: ItemHashes) {
        shortFirstCheck.asked(at: index, after: repeated, items: items)
    }

    /// A page short of the size its URL asks, on a list that showed a filter: the page after it is compared with its
    /// items as they arrived (`hashes`).
    mutating func rememberShortPage(_ hashes: ItemHashes) {
        afterShort.remember(shortPage: hashes)
    }

    /// Whether the walk has asked its probe past a full stated end (once a walk).
    var hasAskedStatedEndProbe: Bool { statedEnd.hasAsked }

    /// The page at `index` is asked past `full`, a full page at the stated end or past it; the first is the probe.
    /// `full`'s body must be in memory.
    mutating func askedPastStatedEnd(at index: Int, after full: Page) {
        statedEnd.asked(at: index, after: full)
    }

    /// The page at `index` was linked past a total's last page: a 404 there agrees with the total.
    mutating func linkedPastStatedEnd(at index: Int) {
        statedEnd.linked(at: index)
    }

    /// Whether the page at `index` is the probe, the first page asked past a full stated end.
    func isStatedEndProbe(_ index: Int) -> Bool { statedEnd.isProbe(index) }

    // MARK: A page that failed

    /// Whether `failure` of the page at `index`, the page far past a repeat, ends the walk at the repeat, maybe cut: nothing
    /// there tells the upstream's habit from data that repeats (walk18).
    func failureEndsAtRepeat(_ failure: PaginationError, at index: Int) -> Bool {
        farCheck.isCheck(index) && failure.isUpstreamFailure
    }

    /// Whether `status`, answered for the page at `index`, ends the walk quietly past a stated end (a 404, 410 or 416, or
    /// one of the scheme's `endStatuses`).
    func statusEndsQuietly(_ status: Int, at index: Int, endStatuses: Set<Int>) -> Bool {
        statedEnd.endsQuietly(status: status, at: index, endStatuses: endStatuses)
    }

    /// Whether `failure` of the page at `index`, the probe, ends the walk quietly at its stated total (retest15 N4).
    func failureEndsQuietly(_ failure: PaginationError, at index: Int) -> Bool {
        statedEnd.endsQuietly(failure: failure, at: index)
    }
}
