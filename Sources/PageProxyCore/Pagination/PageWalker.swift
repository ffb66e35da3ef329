/// Walks every page of a paginated upstream and hands them out in upstream order.
///
/// It is driven by `walk { page in … }` (`PageWalker+Walk`): the fetches in flight are child tasks of one task group
/// whose scope is the call, so none outlives the walk. This file is the walk's state and `accept`, which takes each
/// page in turn; the rest is in its extensions (review22 S1): the page the scheme reads the next from and the pages
/// past a stated end (`+LastKnown`), the pages known ahead (`+Numbered`), the list of known pages and its guards
/// (`+Known`), the window's fetches (`+FanOut`, which decides them: `launches`; `walk` runs them), and a page read
/// from a response (`+PageRead`). The state is internal for them, not private.
///
/// Pages whose URLs are known ahead (a total, a `last` link) are fetched up to `concurrency` at once; pages known
/// only from the one before (a next link, a cursor) one after another. The window of fetched-but-not-yet-taken
/// pages never exceeds `concurrency`, so memory is bounded by concurrency × page size, whatever the total, and a
/// consumer that stops taking pages stops the fetching. Every URL passes the walk's guards before it is requested:
/// same origin as the first page, never seen before, within the route's page limit.
package final class PageWalker {
    let strategy: any PaginationStrategy
    let options: Options
    let fetch: PageFetcher
    let origin: PageURL.Origin
    /// What every page is scanned for: its items and the strategy's values (made once a walk, not once a page).
    let scanPaths: ScanPaths
    /// The page URLs built so far, by page index; those of pages handed out are forgotten (attack5 F4: memory that grew
    /// with pages × URL length). Pages known ahead are built only as the window reaches them (issue 13: building every
    /// URL of a 20,000-page walk before handing out the first page cost hundreds of milliseconds).
    var urls: PageURLWindow
    /// The first page's URL: what a lookahead's lessons are kept under, and the loop guard's first entry.
    let firstURL: PageURL
    /// Pages known ahead whose URLs are not built yet: `pages` from index `next` up to `end`.
    var pending: (pages: NumberedPages, next: Int, end: Int)?
    /// A guard that failed on a page URL built after the page before it was handed out; thrown before the next page.
    var deferredFailure: PaginationError?
    /// Every page URL the walk has requested or will (the loop guard).
    var seen: SeenPageURLs
    /// Pages reached by following the one before, compared with it: an upstream that answers the same page under a
    /// new URL ends the walk with `repeatedPage` rather than `tooManyPages` a thousand requests later.
    var repeats = RepeatedPageGuard()
    /// The pages that may lie past the list's end, and whether each is the upstream's habit there or more of the list
    /// (`PastEndPages`: a repeat of the page before, the check pages after one, the tail past a short page, the pages
    /// past a stated end).
    var pastEnd = PastEndPages()
    /// Where the walk stands against the client's window and the route's `maxPages` (`WalkStanding`).
    var standing: WalkStanding
    /// The index from which one of the scheme's end statuses ends the walk among pages numbered from a total: past those
    /// the size asked numbers, when a short first page numbered them by what it served (real18 F3).
    var endStatusEndsFrom: Int?
    /// The second page of a walk PageProxy numbers itself, compared with the first (real14: an upstream that ignores
    /// the page parameter).
    var ignoredNumber = IgnoredPageNumber()
    /// The first page's items, when the second may repeat some of them (a first page filtered after it was cut; M6).
    var firstOverlap = FirstPageOverlap()
    /// The pages after a short first page, each compared with the one before (an upstream that ignores the limit asked;
    /// review26 L1).
    var steppedOverlap = SteppedPageOverlap()
    /// The pages after a first page that hid more than half its window, stepped by what they show the upstream's window
    /// holds (a cap below the limit; offset20).
    var windowStep = FilteredWindowStep()
    /// The end of the list the walk numbered its pages from, compared with each later page's (review17 B5).
    var statedEnd = StatedEndCheck()
    /// The size the walk numbered its pages ahead by, compared with each numbered page's items (attack16 M3).
    var numberedSize = NumberedPageSizeCheck()
    /// The list's first page, asked beside a `page-number` window's jump: the size the upstream really serves (attack24).
    var sizeProof = WindowSizeProof()
    /// How many items the walk's first page held (`PaginationStrategy.next(after:firstPageItemCount:)`).
    var firstPageItemCount = 0
    /// Whether the second page showed the first page's short count to be the upstream's cap (`acceptLastKnown`): the
    /// pages numbered by it then hold exactly that many, not at most.
    var servedCapShown = false
    /// Whether the second page showed the first filtered (it repeated the first's items): the first page's count is no
    /// cap, and a page is full at the stated end only at its limit (review26 H1: a probe asked after the last page's
    /// items, at a filter's count, handed them out again).
    var firstPageFiltered = false
    /// The fetch of each page of the window that is in flight, by page index.
    var fetching: [Int: FetchID] = [:]
    /// Fetches decided but not started yet: `walk` starts them before it waits.
    var launches: [Launch] = []
    /// Speculative fetches whose guess was discarded: `walk` cancels them.
    var discarded: [FetchID] = []
    var lastFetchID: FetchID = 0
    /// Pages of the window read in place (`Options.cachedPage`), by index, until taken; they count in the window as
    /// fetches do.
    var readInPlace = PagesReadInPlace()
    /// Pages fetched speculatively past the last known one (`lookahead`), in order; confirmed or discarded later.
    var speculative: [(url: PageURL, fetch: FetchID)] = []
    var nextToTake = 0
    var nextToLaunch = 0
    var isListComplete = false
    var isFinished = false
    var itemsTaken = 0
    /// Pages known only from the one before, in a numbered walk with no total: a status in the scheme's
    /// `endStatuses` there means "no such page", the end of the walk, not a failure. A page leaves it when it is
    /// taken, so it holds the window's pages only.
    var openEnded: Set<Int> = []
    /// The index of the first page known ahead (`NextPages.all`), once the scheme has named them.
    var firstNumberedPage: Int?
    /// Set once a guess that was numbered on an upstream's own link missed: it would miss again.
    var isSpeculationStopped = false
    /// The index into `pending`'s pages up to which `Options.readAhead` was told.
    var readAheadEnd = 0
    /// The page index (as in `urls`) up to which `Options.readAhead` was told of guesses.
    var guessedAheadEnd = 0
    /// How many pages past the window `Options.readAhead` is told of; told again once half of them are taken. Each
    /// telling may wake the read-ahead's thread, which then takes the walk's CPU for a while on a busy machine (issue
    /// 13, twelfth pass: 16 pages a telling were ~30 wakes a 501-page walk); as many as a cache holds read ahead
    /// (`DiskStore.readAheadLimit`), so that half of them told again fits beside the half not yet taken.
    static let readAheadDistance = 64

    /// Whether the walk has run fetches as children of a task group (tests: a walk of pages at hand never makes one).
    package internal(set) var hasStartedGroup = false

    /// Whether the walk stopped early at the client's page or item cap (the answer is then partial by request), or ended at a
    /// page that may as well be more of the list (`endedOnRepeat`).
    package internal(set) var wasTruncated = false
    /// The first page was shorter than `Options.windowPageSize` while the list went on: the walk failed there, and
    /// nothing of it was handed out.
    package internal(set) var missedWindowPageSize = false
    /// With `missedWindowPageSize`: a window's walk that jumped met an upstream that filters its pages after cutting
    /// them (`checkWindowNotFiltered`): the window is walked from the first page.
    package internal(set) var windowMetFilter = false
    /// With `missedWindowPageSize`: a window's offset jump to or past the stated total found items there
    /// (`ItemWindow.FirstPageCheck.isFullPastStatedEnd`): walked again from the page before.
    package internal(set) var windowPastStatedEnd = false
    /// Whether the walk's second page was asked to tell the upstream's cap from a filter (`secondPageMayRepeat`).
    var secondPageConfirmsCap = false
    /// Whether the walk ended at a full page at the stated end of the list with no room under its page caps for the
    /// check page past it (retest15 N6), or with its item cap met there: complete as far as the walk can tell, but the
    /// total may be lower than the truth (review22 M2: a window that ends there links on).
    package internal(set) var endedAtUncheckedStatedEnd = false
    /// Whether the walk ended on its own at the list's end: every page handed out, no cap cut it, and no full page at the
    /// stated end was left unchecked. A window it left short of its limit holds the list's last items (harness19 W1).
    package var endedAtListEnd: Bool { hasHandedOutAll && !wasTruncated && !endedAtUncheckedStatedEnd }
    /// Whether the walk may yet fail with `missedWindowPageSize`, to be walked again from another page: at the page before a
    /// window's (`WalkStanding.isAtPageBeforeWindow`), or a jumped window's pages may still show the list filtered
    /// (`windowMayStillMeetFilter`). An answer not begun waits (review21 LOW 3: two names for one thing to the renderer).
    package var mayBeWalkedAgain: Bool { standing.isAtPageBeforeWindow || windowMayStillMeetFilter }
    /// Whether the next page to take is the check page past a repeat (`PastEndPages.isCheckAfterRepeat`): the walk may
    /// yet end or fail there, with the repeat dropped (review21 MEDIUM 2: an NDJSON window past a repeat-last upstream's
    /// end linked on for ever).
    package var awaitsRepeatCheck: Bool { pastEnd.isCheckAfterRepeat(nextToTake) }
    /// How many items the walk's first page held: with `missedWindowPageSize`, what the upstream serves a page.
    package var firstPageItems: Int { firstPageItemCount }

    /// Whether the next page is at hand: the walk will hand it out without suspending.
    package var isNextPageAtHand: Bool { !isFinished && readInPlace.contains(nextToTake) }

    /// Whether the walk has told `Options.readAhead` of pages past its window: its cache reads their entries from
    /// files (a walk through entries kept in memory, or one that fetches every page, tells it nothing).
    package var readsAhead: Bool { readAheadEnd > 0 || guessedAheadEnd > 0 }

    /// Whether the walk has handed out every page it will: it is finished, or the scheme has said the list is complete
    /// and every page on it is taken (the next `prepareNext` says `.end`).
    package var hasHandedOutAll: Bool { isFinished || (isListComplete && nextToTake >= knownCount) }

    /// How many page URLs have been built (tests: URLs are built as the window needs them).
    package var builtURLCount: Int { urls.count }

    /// The bytes of the page URLs the walk keeps, as text: the window's, not every page's (tests: attack5 F4).
    package var keptURLBytes: Int { urls.keptBytes + speculative.reduce(0) { $0 + $1.url.descriptionByteCount } }

    /// How many page URLs the walk keeps (tests: bounded by the window, not the page count).
    package var keptURLCount: Int { urls.keptCount + speculative.count }

    /// Whether the walk failed because a page stated another end of the list than the one it numbered from
    /// (`PaginationError.listChanged`): a server walks again, revalidating, when a page came from its cache.
    package internal(set) var foundListChanged = false

    /// The end the walk numbered its pages from, and the larger one a later page stated, when the list grew at its tail
    /// during the walk with no item walked moving (`StatedEndCheck`; review21 F3): the answer holds the pages numbered
    /// from the first end, and `_explain` says the end grew.
    package var statedEndGrowth: (from: StatedEnd, to: StatedEnd)? { statedEnd.grown }

    /// Whether the walk ended at a page that held the page before's items again (`PastEndRepeat`): past the list's end,
    /// or data that repeats with the page size; the answer is flagged truncated (`wasTruncated`), since it may be cut.
    package internal(set) var endedOnRepeat = false

    /// Whether a page the scheme named ahead (from a total or a `last` link) came back empty, which ended the walk
    /// there short of the total (attack5 m2: an upstream that stated 1000 pages and had 3 was asked for all 1000), or
    /// the page after one short of the size the pages were numbered by (`NumberedPageSizeCheck.sawShortPage`; a short
    /// page a cap stopped the walk at proves nothing, review25 M2): the stated total is wrong, and an answer states
    /// none (attack16 L6: it stayed in `PageProxy-Total`, and windows linked on past the end).
    package internal(set) var endedShortOfTotal = false

    /// Whether the walk numbered pages ahead by a size each but the last holds exactly (a `page-number` total of items,
    /// an offset stepping by a cap): their items, once all are read, are all the list holds.
    package var numberedPagesExactly: Bool { numberedSize.numbersExactly }

    /// How many pages the walk has in all, once the scheme has said (a total, a `last` link, a short page); nil before.
    package var pageCountIfKnown: Int? { isListComplete ? knownCount : nil }

    /// How many pages the walk knows of: built, and known ahead but not built yet.
    var knownCount: Int { urls.count + (pending.map { $0.end - $0.next } ?? 0) }
    /// The pages the walk knows, as its caps count them (`WalkStanding`).
    var knownPages: WalkStanding.Known { WalkStanding.Known(all: knownCount, askedAgain: windowStep.pagesAskedAgain) }

    package convenience init(base: PageURL, scheme: PaginationScheme, options: Options, fetch: @escaping PageFetcher) {
        self.init(base: base, strategy: scheme.makeStrategy(), options: options, fetch: fetch)
    }

    /// A walk with a strategy chosen by the caller (`scheme: "auto"` chooses it after the first page).
    package init(base: PageURL, strategy: any PaginationStrategy, options: Options, fetch: @escaping PageFetcher) {
        self.strategy = strategy
        self.options = options
        self.fetch = fetch
        let first = options.firstPage ?? strategy.firstPage(from: base)
        scanPaths = options.scanPaths ?? ScanPaths(itemsPath: options.itemsPath, valuePaths: strategy.valuePaths)
        self.origin = first.origin
        self.firstURL = first
        self.urls = PageURLWindow(first: first)
        self.seen = SeenPageURLs(first: first)
        self.standing = WalkStanding(options)
        // A route that says its upstream filters its pages (`filteredPages`): no short page ends its list (fix22b).
        self.firstPageFiltered = strategy.filtersPages
        // Earlier walks from this URL sent guesses that could not be confirmed: none now.
        // (A strategy that never guesses has nothing to look up: most walks.)
        self.isSpeculationStopped = strategy.lookahead > 0 && options.lookaheadMemory?.lesson(for: first) == .never
    }

    /// The walk is over, however it ended: reads ahead still queued for it are dropped (issue 13, sixth pass).
    deinit {
        if readAheadEnd > 0 || guessedAheadEnd > 0 { options.readAhead?.walkEnded() }
    }

    /// What the walk has for the next page to take.
    enum Upcoming {
        case end
        /// Read in place: no fetch to wait for.
        case atHand(Page)
        case fetching(FetchID)
    }

    /// Everything before the next page is waited for: the guards, the window launched; the walk ends here when it
    /// is finished, has failed or was cancelled.
    func prepareNext() throws(PaginationError) -> Upcoming {
        guard !isFinished, nextToTake < knownCount else { return .end }
        do throws(PaginationError) {
            if let deferredFailure { throw deferredFailure }
            try buildWindow()
        } catch {
            finish()
            throw error
        }
        // A cancelled walk (its client left) ends here: a fetch that ignores cancellation may still deliver its
        // page, and the walk must not go on to launch the next ones.
        guard !Task.isCancelled else {
            finish()
            throw .cancelled
        }
        launchWindow()
        if let read = readInPlace.take(nextToTake) {
            switch read {
            case .success(let found): return .atHand(found)
            case .failure(let error):
                finish()
                throw error
            }
        }
        guard let fetch = fetching.removeValue(forKey: nextToTake) else { return .end }
        return .fetching(fetch)
    }

    /// Thrown by a walk that `walksOnlyPagesAtHand` where it would fetch a page: the pages before it were handed out
    /// (its body saw them), but not the one before the fetch.
    package struct PageNotAtHand: Error {}

    /// Where the walk would start its fetches: a walk that may not fetch ends here.
    func checkMayFetch() throws(PageNotAtHand) {
        if options.walksOnlyPagesAtHand { throw PageNotAtHand() }
    }

    /// The walk is about to wait for a fetch.
    func willWait() {
        options.beforeWaiting?()
    }

    /// The next page, arrived: the scheme reads what comes after it, the caps apply, the window moves on.
    func accept(_ arrived: Page) throws(PaginationError) -> Page {
        var page = arrived
        nextToTake += 1
        // A page whose body the cache left in its file is read (and checked again) before a guard or the scheme reads
        // its bytes (review16 B1: the past-the-end repeat check sliced an empty body). Each guard says whether it reads
        // them (review22 S3: a list kept here by hand missed one three times: review16 B1, review19 B2, review22 H1).
        if page.bodyInFile != nil, guardsReadBytes(of: page, at: nextToTake - 1) {
            do throws(PaginationError) {
                page = try Self.withBodyRead(page)
            } catch {
                finish()
                throw error
            }
        }
        // Its items' hashes, worked out once, when a check first compares them.
        var hashes = PageItemHashes(arrived: page)
        // The page is out: its URL, and whether a 404 there would have ended the walk, are not asked for again.
        urls.forget(below: nextToTake)
        if !openEnded.isEmpty { openEnded.remove(nextToTake - 1) }
        do {
            if nextToTake == 1 {
                try checkWindowSizeProof(page)
                firstPageItemCount = page.itemCount
                ignoredNumber.remember(firstPage: page)
                let mayRepeat = strategy.secondPageMayRepeat(afterFirst: page)
                secondPageConfirmsCap = mayRepeat != nil
                firstOverlap.remember(firstPage: page, hashes: hashes.of(page), mayRepeat: mayRepeat)
                try checkExpectedPages(after: page)
            }
            // The page as it arrived, before the second drops a filtered first page's items (`SteppedPageOverlap`): every
            // page of an offset walk, not only after a short first page (retest19 F1: a full first page, stepped by the
            // limit, met an upstream that ignores it on every later page, 35 items for 20).
            let comparesServed = secondPageConfirmsCap || !strategy.positionParameters.isEmpty
            if nextToTake == knownCount && !isListComplete {
                try acceptLastKnown(&page, hashes: &hashes)
            } else if pending != nil {
                try acceptNumbered(&page)
            }
            if nextToTake == 1 { try checkWindowPageSize(page) }
            if comparesServed {
                // (An offset strategy's first position parameter is its offset.)
                let offset = page.url.integerQueryValue(strategy.positionParameters.first)
                // A window's walk again by a served size starts one served page before its offset (`ItemWindow.walkingAgain`),
                // off the upstream's grid.
                let steppedOff = options.servedPageSize != nil
                if try steppedOverlap.check(page, arrived: hashes.of(page), index: nextToTake - 1, offset: offset, dropsTailAgain: steppedOff) {
                    // The page before's tail again, past the list's end: its items were handed out with that page.
                    page.truncateItems(to: 0)
                }
            }
        } catch {
            if error.isListChange { foundListChanged = true }
            finish()
            throw error
        }
        if let limit = options.itemLimit, itemsTaken + page.itemCount >= limit {
            let keep = limit - itemsTaken
            // A walk this page ended short of its total has nothing after it, whatever URLs the window built (review17 L8).
            // Nor has one whose only page after it is the check past a full stated end (retest15 N6).
            let onlyTheCheckAfter = pastEnd.isStatedEndProbe(nextToTake) && knownCount == nextToTake + 1
            let hadMore = page.itemCount > keep || (!endedShortOfTotal && !onlyTheCheckAfter && (nextToTake < knownCount || !isListComplete))
            // But the total may be lower than the truth, as when no cap left room for the check page.
            if onlyTheCheckAfter && !hadMore { endedAtUncheckedStatedEnd = true }
            page.truncateItems(to: keep)
            wasTruncated = wasTruncated || hadMore
            // A jumped window's first page short of its limit may hold the whole window, but only the page after it
            // tells a cap from a filter, whose offsets count items the answer never holds: it is taken before the walk
            // ends, none of its items the answer's (filtwin21 G2: `[102…110]` for `[202…210]`, every 2nd id shown).
            if !(windowMayStillMeetFilter && knownCount > nextToTake) { finish() }
        }
        if standing.failsPastMaxPages(itemCount: page.itemCount, at: nextToTake - 1) {
            finish()
            throw .tooManyPages(limit: options.maxPages)
        }
        itemsTaken += page.itemCount
        if standing.isCutAtMaxPages, !isFinished, nextToTake >= knownCount, itemsTaken < options.itemLimit ?? Int.max {
            finish()
            throw .tooManyPages(limit: options.maxPages)
        }
        if let firstNumberedPage, nextToTake > firstNumberedPage, nextToTake < knownCount, page.itemCount == 0, !isFinished {
            endShortOfTotal()
        } else if let firstNumberedPage, pending != nil, nextToTake > firstNumberedPage, page.itemCount == 0,
            strategy.statedEnd(on: page)?.countsItems == true
        {
            // The last page a total of items numbered is empty: the list ended before its total too (attack16 L6). (A
            // count of pages may number an empty last page; it states no total of items either.)
            endedShortOfTotal = true
        }
        do throws(PaginationError) {
            try buildWindow()
        } catch {
            // This page is good; the walk fails when the client asks for the next one.
            deferredFailure = error
        }
        launchWindow()
        return page
    }

    /// Whether a guard will read the bytes of `page`, at `index` (a body left in its file is read for it first).
    private func guardsReadBytes(of page: Page, at index: Int) -> Bool {
        ignoredNumber.readsBytes(ofPageAt: index) || RepeatedPageGuard.readsBytes(under: strategy)
            || pastEnd.readsBytes(of: page, at: index, mayRepeatAfter: strategy.mayRepeatPastEnd(after: page))
            || windowStep.bound != nil || standing.isAtPageBeforeWindow
            || (index == 2 && firstOverlap.secondLayInside != nil)
    }

    /// The next page's fetch failed: the walk ends, quietly (nil) when it was the end of an open-ended walk.
    func fetchFailed(_ error: any Error) throws(PaginationError) -> Page? {
        finish()
        // The page far past a repeat failed: nothing tells the upstream's habit from data that repeats (walk18).
        if !Task.isCancelled, let error = error as? PaginationError, pastEnd.failureEndsAtRepeat(error, at: nextToTake) {
            (endedOnRepeat, wasTruncated) = (true, true)
            return nil
        }
        // DRF and many Rails APIs answer 404 for the page past the last one: with no total, that is the end.
        if case .upstreamStatus(_, _, let status, _)? = error as? PaginationError,
            (openEnded.contains(nextToTake) && strategy.endStatuses.contains(status))
                || pastEnd.statusEndsQuietly(status, at: nextToTake, endStatuses: strategy.endStatuses)
        {
            return nil
        }
        // Past the pages the size asked numbers from a total, as DRF answers past its last page: the list ended there,
        // short of a total that counted items the upstream hid (real18 F3: a 502 for a list of 200 fine items).
        if case .upstreamStatus(_, _, let status, _)? = error as? PaginationError, let from = endStatusEndsFrom, nextToTake >= from,
            strategy.endStatuses.contains(status)
        {
            endedShortOfTotal = true
            return nil
        }
        // The page after a full stated end is a check the total asked for nothing of (`StatedEndProbe`).
        if !Task.isCancelled, let error = error as? PaginationError, pastEnd.failureEndsQuietly(error, at: nextToTake) { return nil }
        // Whatever a fetch ended with once the walk's client left (its socket closed under it) is no failure.
        guard !Task.isCancelled, let error = error as? PaginationError else { throw .cancelled }
        throw error
    }

    /// Stops the walk: nothing more is fetched (`walk`'s group cancels the fetches in flight as it ends).
    func finish() {
        isFinished = true
        fetching = [:]
        launches = []
        discarded = []
        readInPlace.removeAll()
        speculative = []
    }

    /// An empty page among those the scheme named ahead ends the walk: the upstream's total shrank since the first
    /// page (items deleted meanwhile) or was never true. The pages after it are past the end of the list as it is now
    /// and would be empty too, so they are not asked for (at most the window's fetches in flight, cancelled).
    func endShortOfTotal() {
        endedShortOfTotal = true
        pending = nil
        finish()
    }
}
