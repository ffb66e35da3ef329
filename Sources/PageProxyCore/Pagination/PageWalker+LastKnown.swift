/// The page a walk reads the next from (a link, a cursor, a page number with no total) and the pages past a stated end.
extension PageWalker {
    /// `page`, the last page known (reached by the link or cursor of the page before, or numbered by PageProxy with no
    /// total, or the first page): its guards, and the scheme reads what comes after it, up to the pages past a stated end.
    /// `hashes` are its items' as it arrived, worked out once for every check that compares them.
    func acceptLastKnown(_ page: inout Page, hashes: inout PageItemHashes) throws(PaginationError) {
        if strategy.followsUpstream { try repeats.follow(page, wayOnHeader: strategy.wayOnHeader) }
        if pastEnd.repeatsPastStatedEnd(page, at: nextToTake - 1) {
            // A page past a full stated end answered the page before it again (Django's `get_page()` past the end;
            // review21 F1): the list ends there, the repeat dropped.
            page.truncateItems(to: 0)
            try append(.none, after: page)
        } else if let reading = pastEnd.readFarCheck(page, at: nextToTake - 1, isWholeList: isWholeList(page)) {
            // The page far past a repeat (`PastEndClampCheck`): the repeat again there is the upstream's habit past its
            // end, and the list is whole; else the data may repeat with the page size, and the answer may be cut. The
            // list's first page, for a jump: the repeat there is an upstream that ignores the page number; else the jump
            // landed on the last page, repeated past the end.
            switch reading {
            case .listEnded: break
            case .mayBeCut: (endedOnRepeat, wasTruncated) = (true, true)
            case .pageNumberIgnored(let repeatURL): throw IgnoredPageNumber.failure(secondPage: repeatURL)
            }
            page.truncateItems(to: 0)
            try append(.none, after: page)
        } else if standing.steppedBack.isTailCheck(nextToTake - 1) {
            // The page at the first position the page before did not ask, after the window's page held its tail again
            // (`SteppedBackWindowPage.tailAgain`; retest21 A, review22 H1): the end, or new items, a filter or a cap.
            guard standing.steppedBack.readTailCheck(page) else { throw missedWindowPageSizeAfterShort(at: page) }
            page.truncateItems(to: 0)
            try append(.none, after: page)
        } else if nextToTake == 2, let reading = standing.steppedBack.read(page) {
            // The window's page after the page before it (`SteppedBackWindowPage`; attack20 I).
            switch reading {
            case .repeatedFull: try askPastRepeat(&page, listFirst: strategy.listFirstPage(before: firstURL))
            case .repeatedShort:
                page.truncateItems(to: 0)
                try append(.none, after: page)
            case .tailAgain: try askTailCheck(&page)
            case .cappedAfterShort, .shortAfterFull: throw missedWindowPageSizeAfterShort(at: page)
            }
        } else if nextToTake == 2, secondPageConfirmsCap || isFullListFirstOfOffsets, !strategy.followsUpstream,
            ignoredNumber.holdsFirstAgain(page)
        {
            // The short first page again right after its items, or the list's full first page again a limit on: its end,
            // or an upstream ignoring the offset (`ShortFirstPageRepeat`; retest21 LOW B, fold23b's LOW).
            try askShortPageRepeat(&page, items: hashes.of(page), full: !secondPageConfirmsCap)
        } else if try pastEnd.endsListAtShortFirstCheck(page, at: nextToTake - 1) {
            // The first page one position on: its second item first there is an upstream that reads the offset (else
            // the walk failed there: one that ignores it).
            page.truncateItems(to: 0)
            try append(.none, after: page)
        } else if try pastEnd.endsListAfterShortPage(page, hashes: hashes.of(page)) {
            // Past a short page of a list that showed a filter, the list's tail again (an upstream that answers past
            // its end with its last page, cut by its own size; review27 R4): the list ended at the short page.
            page.truncateItems(to: 0)
            try append(.none, after: page)
        } else if !firstPageFiltered || strategy.positionParameters.isEmpty,
            pastEnd.repeatsPageBefore(page, remember: strategy.mayRepeatPastEnd(after: page))
        {
            // The page before again, past the list's end: not handed out twice (review14 F13). Data that repeats
            // with the page size (a series with no id) looks the same byte for byte, and its later pages are
            // lost here: a page far past tells them apart (walk18), or, with no room for it, the answer says it may
            // be cut (retest14 M1: a 200 with 3 of 9 rows, said nowhere). The check page counts against `maxPages`
            // alone. A window's jump repeated at once is asked the list's first page instead (`listFirstPage`); with no
            // room for it, that is an upstream ignoring the page number, as it was before the check. Not an offset walk
            // that showed a filter: its pages step over the positions it hid and may hold the page before's items again
            // while the list goes on; `PastShortPageRepeat` and `FilteredWindowStep` read its tail past the end.
            try askPastRepeat(&page, listFirst: nextToTake == 2 ? strategy.listFirstPage(before: firstURL) : nil)
        } else {
            // The window's page after the page before (`SteppedBackWindowPage`) holding more than asked: the upstream
            // serves a size of its own, as a window's first page longer than its size shows (`FirstPageCheck.holds`):
            // walked again from the first page, not failed (an own size of 7 for a `limit` of 5 under a filter: the
            // page before held 5, this one 6).
            if nextToTake == 2, options.windowCheck?.steppedBack == true, let asked = strategy.sizeAsked(by: page.url), page.itemCount > asked {
                (missedWindowPageSize, windowMetFilter) = (true, true)
                throw .cannotContinue(
                    page: 2, reason: "it holds \(page.itemCount) items where \(asked) were asked: the upstream serves a size of its own")
            }
            var (measuredBy, repeatedOfFirst, askedAgain) = (firstPageItemCount, 0, nil as PageURL?)
            // The second page asked again (`secondPageAgain`): this page, holding items past the first page's again,
            // shows that positions the second page spanned hid theirs, a filter.
            let isSecondAskedAgain = nextToTake == 3 && firstOverlap.secondLayInside != nil
            if nextToTake == 2 && !strategy.followsUpstream { try ignoredNumber.check(secondPage: page) }
            if nextToTake == 2 && !strategy.followsUpstream && !windowStep.servesOwnSize {
                // The first page was filtered, not capped, when this one starts with its last items again: no
                // count confirms a cap the items refuted (attack14 M6: items twice under a 200).
                let repeated = firstOverlap.repeated(in: hashes.of(page))
                repeatedOfFirst = repeated ?? 0
                if repeatedOfFirst > 0 { measuredBy = 0 }
                // Asked for as many as the first served, full, and holding none of its items again: the first page
                // hid nothing in its window (a hidden item would have left its window reaching into this one), so its
                // count is the upstream's cap, and the pages numbered by it hold exactly that (walk18). Items that
                // cannot be compared (not each unique, a body in its file) show it by the count alone, as before
                // walk18 (review26 M2: a cached walk numbered "at most" where a fresh one numbered exactly).
                servedCapShown = page.itemCount == firstPageItemCount && (repeated == 0 || (repeated == nil && firstOverlap.mayRepeat))
                // Inside the first page's window (the first hid more than half of it): its items are the first's
                // again, and the walk goes on from this page asked with the first's limit (review26 H1).
                if let first = firstOverlap.secondLayInside {
                    // An empty page too: a cap and a filter may hide every item of the few positions asked (fix21a).
                    askedAgain = strategy.secondPageAgain(page, firstPage: first, firstPageItemCount: firstPageItemCount)
                    if askedAgain != nil {
                        (repeatedOfFirst, servedCapShown) = (page.itemCount, false)
                    } else {
                        firstOverlap = FirstPageOverlap()
                    }
                }
            } else if nextToTake == 3 && firstOverlap.secondLayInside != nil {
                // The second page asked again with the first's limit: it starts with the first's items past its served
                // count (a filter, not a cap), and the walk steps by what the pages show the upstream's window holds
                // until that is the limit: a cap below it would leave positions never asked (`FilteredWindowStep`).
                repeatedOfFirst = firstOverlap.repeated(in: hashes.of(page)) ?? 0
                measuredBy = 0
                if let limit = strategy.sizeAsked(by: page.url), let arrived = hashes.of(page) {
                    let position = strategy.positionParameters.first
                    windowStep.start(
                        hashes: arrived, offset: page.url.integerQueryValue(position) ?? 0,
                        firstOffset: firstURL.integerQueryValue(position) ?? 0, repeated: repeatedOfFirst, limit: limit)
                }
            } else if windowStep.bound != nil, let limit = strategy.sizeAsked(by: page.url), let arrived = hashes.of(page) {
                // A page stepped by the window's known size: the page before's last items it holds again are dropped.
                let offset = page.url.integerQueryValue(strategy.positionParameters.first) ?? 0
                switch try windowStep.read(hashes: arrived, offset: offset, limit: limit, page: page.number) {
                case .continues(let repeated): repeatedOfFirst = repeated
                case .tailAgain:
                    // The list's tail again past its end: the list ended at the page before.
                    page.truncateItems(to: 0)
                    try append(.none, after: page)
                    return
                }
                measuredBy = 0
            }
            // A first page that holds more items than its limit asked: the upstream serves a size of its own (it ignores
            // the limit, or reads it no lower than a size of its own). The walk steps by what the pages show it holds,
            // each page's lead that the page before held dropped (`FilteredWindowStep`); before, a `502`.
            if nextToTake == 1, !strategy.followsUpstream, let asked = strategy.sizeAsked(by: page.url), page.itemCount > asked,
                let arrived = hashes.of(page)
            {
                windowStep.start(ownSize: arrived, offset: page.url.integerQueryValue(strategy.positionParameters.first) ?? 0)
            }
            if repeatedOfFirst > 0 || askedAgain != nil || windowStep.servesOwnSize { firstPageFiltered = true }
            // A window's pages counted by a size hold fewer of its items once a filter shows (filtwin21).
            if firstPageFiltered { standing.liftWindowPages() }
            // Once the list showed a filter, no page's count is a cap to measure by, and a short page is no end
            // (`OffsetStrategy.next`: with no total, only an empty page ends the list).
            if firstPageFiltered { measuredBy = 0 }
            // Pages PageProxy numbers itself are compared; a page reached by the upstream's link numbers from its own.
            try statedEnd.check(page, strategy: strategy, compares: !strategy.followsUpstream)
            var next: NextPages
            if let askedAgain {
                next = .one(askedAgain)
            } else if let step = windowStep.bound,
                let stepped = try strategy.next(after: page, steppingBy: step, ownSize: windowStep.servesOwnSize)
            {
                next = stepped
            } else if let fromStart = try strategy.next(after: page, walkStartedAt: firstURL) {
                next = fromStart
            } else {
                next = try strategy.next(after: page, firstPageItemCount: measuredBy)
            }
            // One page before a window's (`SteppedBackWindowPage`): remembered, and the window's page asked after it
            // even when it is short with no total (the list's end, or the upstream's cap: review20 H2).
            if nextToTake == 1, let check = options.windowCheck, check.steppedBack {
                let short = check.asksPastShort(page)
                standing.steppedBack.remember(
                    page, short: short, listFirst: strategy.listFirstPage(before: firstURL) == nil, walkedAgain: options.servedPageSize != nil)
                if short, next.isNone, let windowPage = strategy.guessNext(after: page.url) { next = .one(windowPage) }
            }
            // A short page the filter leaves no end: the page after it is compared with its items as they arrived
            // (stepped by the window's known size, the pages overlap, and `FilteredWindowStep` compares them). Not the
            // first page of a route that says it filters (`filteredPages`): the second page may hold its last items
            // again, which `FirstPageOverlap` drops (fix22b: taken for the list's tail again, every such list ended there).
            if firstPageFiltered, nextToTake > 1, askedAgain == nil, windowStep.bound == nil, case .one = next, strategy.isShortOfSizeAsked(page) {
                if let arrived = hashes.of(page) {
                    pastEnd.rememberShortPage(arrived)
                } else {
                    pastEnd.rememberShortPage(ItemHashes(try Self.withBodyRead(page)))
                }
            }
            if nextToTake == 2 {
                try checkWindowNotFiltered(secondPage: page, repeated: repeatedOfFirst, next: next)
            } else if isSecondAskedAgain, page.itemCount > 0 {
                // Items past the first's again, or the first's last items again (its window reached past the positions
                // asked after its items: fix21a, `[16]` after ids 12 and 16 of positions 10…16), show the filter.
                try meetFilter(shownBy: page)
            }
            // A window's jumped first page short at the stated total is full at its count (`fullAtStatedEnd`; attack20 F).
            let fullAt = nextToTake > 1 ? (firstPageFiltered ? nil : firstPageItemCount) : options.servedPageSize ?? options.windowCheck?.fullAtStatedEnd(page)
            let past = next.isNone && !strategy.followsUpstream ? strategy.pageAfterStatedEnd(page, fullAt: fullAt) : nil
            if let past, try goesPastStatedEnd(to: past, from: &page) {
                // A full page at the stated end, or past it: the total may be lower than the truth (review17 B10).
            } else {
                // The second page asked again spans the positions the second asked, which the window counted: it is
                // not cut at the window's page count (fix21a: a stepped-back window of 5 items counted 2 pages, and
                // ended at the empty second page, `[]`).
                try append(next, after: page, isCheckPage: askedAgain != nil)
            }
            // The repeated items are not handed out twice (the page's place in the list was read above).
            if repeatedOfFirst > 0 { page.items.removeFirst(repeatedOfFirst) }
        }
    }

    /// `page`, the page before's items again (`PastEndRepeat`, `SteppedBackWindowPage`), is dropped, and the page that
    /// tells the upstream's habit from data that repeats is asked: `listFirst`, the list's first page for a window's jump
    /// repeated at once, or a page far past (`PastEndClampCheck`). With no room for it under `maxPages`, a jump's repeat
    /// is an upstream ignoring the page number, and another repeat ends the walk, flagged as maybe cut.
    func askPastRepeat(_ page: inout Page, listFirst: PageURL?) throws(PaginationError) {
        if listFirst != nil, !standing.hasRoomUnderMaxPages(knownPages) {
            throw IgnoredPageNumber.failure(secondPage: page.url)
        }
        if standing.hasRoomUnderMaxPages(knownPages),
            let far = listFirst ?? strategy.pageFarPast(page, by: options.maxPages), far.origin == origin,
            !seen.contains(far)
        {
            pastEnd.askedFarCheck(at: urls.count, after: page, listFirstPage: listFirst != nil)
            page.truncateItems(to: 0)
            // Not a guess missed: a lookahead's lesson is not learned from it.
            discardSpeculation()
            try append(.one(far), after: page, isCheckPage: true)
        } else {
            page.truncateItems(to: 0)
            endedOnRepeat = true
            wasTruncated = true
            try append(.none, after: page)
        }
    }

    /// `page`, the window's, holds the page before's last items again (`SteppedBackWindowPage.tailAgain`):
    /// dropped, and the page at the first position the page before did not ask, with its size, asked under `maxPages`
    /// alone (review22's fix for retest21 A). With no room for it, or no such page, the upstream's cap, as before.
    func askTailCheck(_ page: inout Page) throws(PaginationError) {
        guard standing.hasRoomUnderMaxPages(knownPages), let check = strategy.guessNext(after: firstURL), check.origin == origin,
            !seen.contains(check)
        else {
            standing.steppedBack.forget()
            throw missedWindowPageSizeAfterShort(at: page)
        }
        standing.steppedBack.askedTailCheck(at: urls.count)
        page.truncateItems(to: 0)
        // Not a guess missed: a lookahead's lesson is not learned from it.
        discardSpeculation()
        try append(.one(check), after: page, isCheckPage: true)
    }

    /// The failure of a window's walk whose page before the window's was short and whose window's page (or the tail
    /// check's) held other items: the upstream's cap, and the window is walked again by what it served.
    func missedWindowPageSizeAfterShort(at page: Page) -> PaginationError {
        missedWindowPageSize = true
        return .cannotContinue(
            page: page.number,
            reason: "the page before the window's held \(firstPageItemCount) items and the window's page others: the "
                + "upstream serves fewer a page than asked, so the window's pages cannot be counted by that size")
    }

    /// `page`, the walk's second, holds the short (or `full`) first page's items again (`ShortFirstPageRepeat`): dropped,
    /// and the first page one position on asked, under `maxPages` alone; a short first page of one item is the whole
    /// list (a full one, of a limit of 1, is as often the offset ignored: it fails). With no room for the check, or items
    /// not compared (`items` nil), an upstream ignoring the offset, as before.
    func askShortPageRepeat(_ page: inout Page, items: ItemHashes?, full: Bool = false) throws(PaginationError) {
        ignoredNumber = IgnoredPageNumber()
        guard let items, !full || items.values.count >= 2 else { throw IgnoredPageNumber.failure(secondPage: page.url) }
        page.truncateItems(to: 0)
        guard items.values.count >= 2 else {
            try append(.none, after: page)
            return
        }
        // (An offset strategy's first position parameter is its offset.)
        guard standing.hasRoomUnderMaxPages(knownPages), let offset = strategy.positionParameters.first,
            let check = firstURL.advancingQueryValue(offset, by: 1, from: 0)
        else { throw IgnoredPageNumber.failure(secondPage: page.url) }
        pastEnd.askedShortFirstCheck(at: urls.count, after: page, items: items)
        discardSpeculation()
        try append(.one(check), after: page, isCheckPage: true)
        // An end status there tells nothing: the walk fails with it, as it did at the repeat.
        openEnded.remove(urls.count - 1)
    }

    /// Whether the walk's first page was the list's first (offset 0) of an offset walk, full (not `secondPageConfirmsCap`):
    /// its items again on the second page, a limit on, are an upstream that answers past its end with its last page, the
    /// list that one page, or one that ignores the offset; the first page one position on tells (`ShortFirstPageRepeat`;
    /// fold23b's LOW: `/drfnt?mock_total=10&mock_past_end=last` was a `502`).
    var isFullListFirstOfOffsets: Bool {
        !secondPageConfirmsCap && !strategy.positionParameters.isEmpty && strategy.listFirstPage(before: firstURL) == nil
    }

    /// Whether `page`, the list's first, is the whole list: short of the size it asked, or holding the total it states.
    func isWholeList(_ page: Page) -> Bool {
        strategy.isShortOfSizeAsked(page) || strategy.statedEnd(on: page) == .items(page.itemCount)
    }

    /// A walk's short first page followed by a second that shows a filter (the first page's last items again, or fewer
    /// than the first served while the list goes on), not a cap: the upstream hides items after cutting its pages, so
    /// an offset counts items the answer never holds (`FilteringLists` remembers it). A window's walk that jumped to an
    /// offset landed on other items than the merged answer's (real18 F2: `_offset=98` answered from id 103 where the
    /// merged answer's item 98 is id 123, and a scroll got 40 items twice): it fails with `windowMetFilter`, and is
    /// walked from the start.
    /// An empty second page where the total states more positions shows it too, for a window's jump: a cap serves a
    /// page there, so its positions hid their items, or the total counts items never served (filtwin21 G3: the jump to
    /// `offset=20` over ids 1–30 with every 15th hidden held 21–29, the page after it none, and the window `[26…29]`
    /// stood for `[27,28,29]`, the hidden id 15 before it uncounted). Walked from the start, the window is the slice of
    /// the merged answer either way.
    func checkWindowNotFiltered(secondPage page: Page, repeated: Int, next: NextPages) throws(PaginationError) {
        guard secondPageConfirmsCap else { return }
        if page.itemCount == 0 {
            guard standing.isJumpedWindow, let total = strategy.statedEnd(on: page), total.countsItems,
                let offset = page.url.integerQueryValue(strategy.positionParameters.first), offset < total.value
            else { return }
        } else {
            guard repeated > 0 || (page.itemCount < firstPageItemCount && !next.isNone) else { return }
        }
        try meetFilter(shownBy: page)
    }

    /// `page`, the second (or the second asked again, `secondPageAgain`: filtwin21, a cap of 7 under a filter showing one
    /// id in three left the second page empty, and a window jumped to `_offset=10` answered ids 12 and 15 for 33 and 36),
    /// showed the list filtered: remembered (`FilteringLists`); a window's walk from the list's first item is no longer
    /// cut by the window's page count (`Options.pageLimitOnceFiltered`); one that jumped fails with `windowMetFilter`.
    func meetFilter(shownBy page: Page) throws(PaginationError) {
        options.lookaheadMemory?.filteringLists.learnFiltered(page.url, positions: strategy.positionParameters)
        standing.liftWindowPages()
        guard standing.isJumpedWindow else { return }
        missedWindowPageSize = true
        windowMetFilter = true
        throw .cannotContinue(
            page: page.number,
            reason: "the upstream hides items from pages after cutting them, so the window cannot start at an offset")
    }

    /// Whether the walk, a window's that jumped to an offset, may still fail at a page that shows the list filtered
    /// (`meetFilter`): its second page, after a first that may show it, is not taken yet, or its third, when the second
    /// was asked again. An NDJSON
    /// head waits for it (filtwin21: after its head, the window cannot be walked again from the first page).
    package var windowMayStillMeetFilter: Bool {
        guard standing.isJumpedWindow, !hasHandedOutAll else { return false }
        return (nextToTake < 2 && secondPageConfirmsCap) || (nextToTake < 3 && firstOverlap.secondLayInside != nil)
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
        if !pastEnd.hasAskedStatedEndProbe {
            guard standing.hasRoomForCheckPage(knownPages) else {
                endedAtUncheckedStatedEnd = true
                return false
            }
            isListComplete = false
            pending = nil
        }
        page = try Self.withBodyRead(page)
        pastEnd.askedPastStatedEnd(at: urls.count, after: page)
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
        // An upstream that serves a size of its own may hide items after cutting its pages, which only the next page
        // shows: a window's offsets cannot count by what it serves, and the window is walked from the first page.
        if windowStep.servesOwnSize { windowMetFilter = true }
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
        var wanted = min(expected, standing.pageCap ?? Int.max)
        // A window from the walk's start wants the pages its items fill at this page's count; a later page holding fewer
        // (a filter) makes it ask more, each counted against `maxPages` as it is asked.
        if options.windowFromWalkStart, let items = options.itemLimit, page.itemCount > 0 {
            wanted = min(wanted, items / page.itemCount + (items % page.itemCount == 0 ? 0 : 1))
        }
        guard wanted <= options.maxPages else { throw .tooManyPages(limit: options.maxPages) }
    }
}
