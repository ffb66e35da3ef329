/// The page a walk reads the next from (a link, a cursor, a page number with no total) and the pages past a stated end.
extension PageWalker {
    /// `page`, the last page known (reached by the link or cursor of the page before, or numbered by PageProxy with no
    /// total, or the first page): its guards, and the scheme reads what comes after it, up to the pages past a stated end.
    func acceptLastKnown(_ page: inout Page) throws(PaginationError) {
        if strategy.followsUpstream { try repeats.follow(page, wayOnHeader: strategy.wayOnHeader) }
        if probe.isRepeat(page, at: nextToTake - 1) {
            // A page past a full stated end answered the page before it again (Django's `get_page()` past the end;
            // review21 F1): the list ends there, the repeat dropped.
            page.truncateItems(to: 0)
            try append(.none, after: page)
        } else if pastEnd.isRepeat(page, keep: strategy.mayRepeatPastEnd(after: page)) {
            // The page before again, past the list's end: not handed out twice (review14 F13). Data that repeats
            // with the page size (a series with no id) looks the same byte for byte, and its later pages are
            // lost here: nothing on the wire tells the two apart, so the answer says it may be cut (retest14 M1:
            // a 200 with 3 of 9 rows, said nowhere).
            page.truncateItems(to: 0)
            endedOnRepeat = true
            wasTruncated = true
            try append(.none, after: page)
        } else {
            var (measuredBy, repeatedOfFirst) = (firstPageItemCount, 0)
            if nextToTake == 2 && !strategy.followsUpstream {
                try ignoredNumber.check(secondPage: page)
                // The first page was filtered, not capped, when this one starts with its last items again: no
                // count confirms a cap the items refuted (attack14 M6: items twice under a 200).
                let repeated = firstOverlap.repeated(in: page)
                repeatedOfFirst = repeated ?? 0
                if repeatedOfFirst > 0 { measuredBy = 0 }
                // Asked for as many as the first served, full, and holding none of its items again: the first page
                // hid nothing in its window (a hidden item would have left its window reaching into this one), so its
                // count is the upstream's cap, and the pages numbered by it hold exactly that (walk18).
                servedCapShown = repeated == 0 && page.itemCount == firstPageItemCount
            }
            // Pages PageProxy numbers itself are compared; a page reached by the upstream's link numbers from its own.
            try statedEnd.check(page, strategy: strategy, compares: !strategy.followsUpstream)
            let next = try strategy.next(after: page, firstPageItemCount: measuredBy)
            if nextToTake == 2 { try checkWindowNotFiltered(secondPage: page, repeated: repeatedOfFirst, next: next) }
            let past =
                next.isNone && !strategy.followsUpstream
                ? strategy.pageAfterStatedEnd(page, fullAt: nextToTake > 1 ? firstPageItemCount : options.servedPageSize) : nil
            if let past, try goesPastStatedEnd(to: past, from: &page) {
                // A full page at the stated end, or past it: the total may be lower than the truth (review17 B10).
            } else {
                try append(next, after: page)
            }
            // The repeated items are not handed out twice (the page's place in the list was read above).
            if repeatedOfFirst > 0 { page.items.removeFirst(repeatedOfFirst) }
        }
    }

    /// A walk's short first page followed by a second that shows a filter (the first page's last items again, or fewer
    /// than the first served while the list goes on), not a cap: the upstream hides items after cutting its pages, so
    /// an offset counts items the answer never holds (`FilteringLists` remembers it). A window's walk that jumped to an
    /// offset landed on other items than the merged answer's (real18 F2: `_offset=98` answered from id 103 where the
    /// merged answer's item 98 is id 123, and a scroll got 40 items twice): it fails with `windowMetFilter`, and is
    /// walked from the start.
    func checkWindowNotFiltered(secondPage page: Page, repeated: Int, next: NextPages) throws(PaginationError) {
        guard secondPageConfirmsCap, page.itemCount > 0, repeated > 0 || (page.itemCount < firstPageItemCount && !next.isNone) else { return }
        options.lookaheadMemory?.filteringLists.learnFiltered(page.url, positions: strategy.positionParameters)
        guard let check = options.windowCheck, check.firstItem > 0 else { return }
        missedWindowPageSize = true
        windowMetFilter = true
        throw .cannotContinue(
            page: 2,
            reason: "the upstream hides items from pages after cutting them, so the window cannot start at an offset")
    }

    /// Goes on past `page`, full at the stated end of the list or past it, to `url`: the total may be lower than the
    /// truth (review17 B10). The first time, one check page (the probe, `StatedEndProbe`), if the caps leave room for it
    /// (retest15 N6). A check page that held items (not the last page again) proved the total low: the pages after it
    /// are ordinary pages, asked while each is full, whose failures fail the walk and which count against every cap
    /// (review22 H2: each was another check page, and a failure or a cap there ended the walk quietly, complete, a
    /// 200 with 120 of 150 items). False: the list ends at `page`.
    ///
    /// The check page asks nothing of the total: a 404, 410, 416 or end status there, or any failure, ends the walk at
    /// the total (`fetchFailed`). Every page past the stated end is compared with the page before it: that page again
    /// is the last one repeated past the end (Django's `get_page()`; review21 F1), dropped (`accept`); a 404, 410 or
    /// 416 there ends the list. A body the cache left in its file is read for that (review22 H1: after a restart with
    /// `sendFromFiles` the last numbered page's span was empty, nothing was dropped, and every page after it was the
    /// last one again).
    func goesPastStatedEnd(to url: PageURL, from page: inout Page) throws(PaginationError) -> Bool {
        if !probe.hasAsked {
            guard hasRoomForCheckPage else {
                endedAtUncheckedStatedEnd = true
                return false
            }
            isListComplete = false
            pending = nil
        }
        page = try Self.withBodyRead(page)
        probe.asked(at: urls.count, after: page)
        try append(.one(url), after: page)
        return true
    }

    /// `page` with its body read from the file the cache left it in, if it did.
    static func withBodyRead(_ page: Page) throws(PaginationError) -> Page {
        guard let read = page.withBodyRead() else {
            throw .cannotContinue(page: page.number, reason: "its cached copy changed on disk after it was checked; retry")
        }
        return read
    }

    /// The walk's first page, against the size a window counted its pages by (`Options.windowCheck`); the list goes
    /// on when more pages are known, or were cut by the window's page count.
    func checkWindowPageSize(_ page: Page) throws(PaginationError) {
        guard let check = options.windowCheck, !check.holds(page, listGoesOn: wasTruncated || knownCount > 1 || !isListComplete) else { return }
        missedWindowPageSize = true
        windowPastStatedEnd = check.isFullPastStatedEnd(page)
        throw .cannotContinue(
            page: 1,
            reason: "it holds \(page.itemCount) items where the window counted pages of \(check.size): the upstream serves fewer a "
                + "page than asked, so the window's pages cannot be counted by that size")
    }

    /// A scheme that knows the page count only from a total (a next URL with DRF's `count`) is refused at the first
    /// page when the count is over the route's limit, not after `maxPages` pages.
    func checkExpectedPages(after page: Page) throws(PaginationError) {
        guard let expected = strategy.expectedPageCount(after: page) else { return }
        let wanted = min(expected, options.pageLimit ?? Int.max)
        guard wanted <= options.maxPages else { throw .tooManyPages(limit: options.maxPages) }
    }
}
