/// Fetches a page's response; the cache, retries and the network live behind it.
package typealias PageFetcher = @Sendable (_ url: PageURL, _ pageNumber: Int) async throws(PaginationError) -> UpstreamResponse

/// A page's response when it is at hand without suspending (a fresh cache hit), else nil.
package typealias CachedPageReader = @Sendable (_ url: PageURL, _ pageNumber: Int) -> UpstreamResponse?

/// Told the pages a walk will (probably) want next.
package struct PageReadAhead: Sendable {
    /// Whether reading ahead would do anything now (a cache whose entries are in memory: no); while it says no, the
    /// walker names no pages and counts none as told, and asks again at its next page.
    package var isWanted: @Sendable () -> Bool
    /// Takes the number of the first page told and a closure that builds the pages' URLs (of that page and the ones
    /// after it, in order), to be called off the walk; returns at once. The number lets a cache key the pages where
    /// the walk will look for their keys (`CacheKeyPages`: issue 13, eleventh pass).
    package var read: @Sendable (_ firstNumber: Int, _ urls: @escaping @Sendable () -> [PageURL]) -> Void
    /// Told once, when the walk has ended (its walker is gone: finished, failed, or its client left): the reads still
    /// queued for it are of no use to anyone.
    package var walkEnded: @Sendable () -> Void

    package init(
        isWanted: @escaping @Sendable () -> Bool = { true },
        numbered read: @escaping @Sendable (_ firstNumber: Int, _ urls: @escaping @Sendable () -> [PageURL]) -> Void,
        walkEnded: @escaping @Sendable () -> Void = {}
    ) {
        self.isWanted = isWanted
        self.read = read
        self.walkEnded = walkEnded
    }

    /// A read-ahead told the URLs only.
    package init(
        isWanted: @escaping @Sendable () -> Bool = { true }, read: @escaping @Sendable (_ urls: @escaping @Sendable () -> [PageURL]) -> Void,
        walkEnded: @escaping @Sendable () -> Void = {}
    ) {
        self.init(isWanted: isWanted, numbered: { _, urls in read(urls) }, walkEnded: walkEnded)
    }
}

/// Walks every page of a paginated upstream and hands them out in upstream order.
///
/// It is driven by `walk { page in … }` (`PageWalker+Walk`): the fetches in flight are child tasks of one task group
/// whose scope is the call, so none outlives the walk. This file is the walk's state: which pages are known, which
/// are to be fetched, the guards and the caps; it decides fetches (`launches`), `walk` runs them.
///
/// Pages whose URLs are known ahead (a total, a `last` link) are fetched up to `concurrency` at once; pages known
/// only from the one before (a next link, a cursor) one after another. The window of fetched-but-not-yet-taken
/// pages never exceeds `concurrency`, so memory is bounded by concurrency × page size, whatever the total, and a
/// consumer that stops taking pages stops the fetching. Every URL passes the walk's guards before it is requested:
/// same origin as the first page, never seen before, within the route's page limit.
package final class PageWalker {
    package struct Options: Sendable {
        package var itemsPath: JSONPath = .root
        package var concurrency = 4
        /// The route's runaway guard: needing more pages is an error. It also bounds memory: a scheme describes the
        /// pages it knows ahead (`NumberedPages`), and URLs are built only once their count is within this limit.
        package var maxPages = 1000
        /// The client's cap (`_max_pages`): the walk stops quietly after this many pages.
        package var pageLimit: Int? = nil
        /// The client's cap (`_max_items`): the walk stops quietly once this many items are out.
        package var itemLimit: Int? = nil
        /// How a window (`_offset`/`_limit`) that counted `pageLimit` and its jump by a page size checks that size on
        /// the first page. A first page that proves it wrong (the upstream caps the size; review17 B9: GitHub's 100
        /// under a `per_page=500`, JupyterHub's 200 under a route's `limit: 500`) fails the walk there, before the
        /// page is handed out, with `missedWindowPageSize` set: the window is walked again from the first page.
        package var windowCheck: ItemWindow.FirstPageCheck? = nil
        /// Where `lookahead` keeps what it learned about the upstream's links, across walks.
        package var lookaheadMemory: LookaheadMemory? = nil
        /// Tried before a page is fetched: a page it answers is read in place, with no task and no suspension (issue
        /// 13: a walk through the cache was a task hop per page). The walk's fetcher is used when it answers nil.
        package var cachedPage: CachedPageReader? = nil
        /// The first page's URL and the paths pages are scanned for, as the walk's strategy gives them, when the caller
        /// has them already (a plan kept for many requests, issue 13); nil: the walk asks its strategy.
        package var firstPage: PageURL? = nil
        package var scanPaths: ScanPaths? = nil
        /// Called each time the walk is about to wait for a fetch (never for pages read in place): a server arms its
        /// watch for a client leaving only then (issue 13: arming it for a walk that never waits cost a task).
        package var beforeWaiting: (@Sendable () -> Void)? = nil
        /// Told, as the walk moves on, of the pages it will want next, up to `readAheadDistance` ahead: the pages
        /// known ahead past the window, or the strategy's guesses when pages are known only from the one before. A
        /// cache reads their entries ahead on another thread (issue 13: read-back after a restart); a wrong guess
        /// costs a look into the cache, never a request.
        package var readAhead: PageReadAhead? = nil
        /// A walk that never waits: where it would fetch a page (one `cachedPage` did not answer), it throws
        /// `PageWalker.PageNotAtHand` instead, before it hands out the page before that one (a server answers such
        /// walks on its socket loop's thread, and the rest from the start on the pool; issue 13).
        package var walksOnlyPagesAtHand = false
        package init() {}
    }

    private let strategy: any PaginationStrategy
    private let options: Options
    private let fetch: PageFetcher
    private let origin: PageURL.Origin
    /// What every page is scanned for: its items and the strategy's values (made once a walk, not once a page).
    private let scanPaths: ScanPaths
    /// The page URLs built so far, by page index; those of pages handed out are forgotten (attack5 F4: memory that grew
    /// with pages × URL length). Pages known ahead are built only as the window reaches them (issue 13: building every
    /// URL of a 20,000-page walk before handing out the first page cost hundreds of milliseconds).
    private var urls: PageURLWindow
    /// The first page's URL: what a lookahead's lessons are kept under, and the loop guard's first entry.
    private let firstURL: PageURL
    /// Pages known ahead whose URLs are not built yet: `pages` from index `next` up to `end`.
    private var pending: (pages: NumberedPages, next: Int, end: Int)?
    /// A guard that failed on a page URL built after the page before it was handed out; thrown before the next page.
    private var deferredFailure: PaginationError?
    /// A digest of every page URL the walk has requested or will, not the URL (attack5 F4: 64 KB cursors kept for the
    /// whole walk); the first page's joins when the set is first used (`hasSeen`): a walk of one page never needs it.
    private var seen: Set<PageURLDigest> = []
    /// Pages reached by following the one before, compared with it: an upstream that answers the same page under a
    /// new URL ends the walk with `repeatedPage` rather than `tooManyPages` a thousand requests later.
    private var repeats = RepeatedPageGuard()
    /// Pages of a walk PageProxy numbers itself that the upstream may answer again past the list's end.
    private var pastEnd = PastEndRepeat()
    /// The second page of a walk PageProxy numbers itself, compared with the first (real14: an upstream that ignores
    /// the page parameter).
    private var ignoredNumber = IgnoredPageNumber()
    /// The first page's items, when the second may repeat some of them (a first page filtered after it was cut; M6).
    private var firstOverlap = FirstPageOverlap()
    /// The end of the list the walk numbered its pages from, compared with each later page's (review17 B5).
    private var statedEnd = StatedEndCheck()
    /// The size the walk numbered its pages ahead by, compared with each numbered page's items (attack16 M3).
    private var numberedSize = NumberedPageSizeCheck()
    /// How many items the walk's first page held (`PaginationStrategy.next(after:firstPageItemCount:)`).
    private var firstPageItemCount = 0
    /// The fetch of each page of the window that is in flight, by page index.
    private var fetching: [Int: FetchID] = [:]
    /// Fetches decided but not started yet: `walk` starts them before it waits.
    var launches: [Launch] = []
    /// Speculative fetches whose guess was discarded: `walk` cancels them.
    var discarded: [FetchID] = []
    private var lastFetchID: FetchID = 0
    /// Pages of the window read in place (`Options.cachedPage`), by index, until taken; they count in the window as
    /// fetches do.
    private var readInPlace = PagesReadInPlace()
    /// Pages fetched speculatively past the last known one (`lookahead`), in order; confirmed or discarded later.
    private var speculative: [(url: PageURL, fetch: FetchID)] = []
    private var nextToTake = 0
    private var nextToLaunch = 0
    private var isListComplete = false
    private var isFinished = false
    private var itemsTaken = 0
    /// Pages known only from the one before, in a numbered walk with no total: a status in the scheme's
    /// `endStatuses` there means "no such page", the end of the walk, not a failure. A page leaves it when it is
    /// taken, so it holds the window's pages only.
    private var openEnded: Set<Int> = []
    /// The index of the page followed past a stated total's last page, if any (the latest): a 404, 410 or 416
    /// (PostgREST), or one of the scheme's end statuses, there ends the walk.
    private var pastStatedEnd: Int?
    /// The number of the page after which the walk asks one more page only to check a full last page's stated total
    /// (`PaginationStrategy.pageAfterStatedEnd`): it counts against no cap, and its failure ends the walk quietly.
    /// Asked once a walk (`goesPastStatedEnd`): the pages after a check page that held items are ordinary pages.
    private var checkAfterStatedEnd: Int?
    /// The items of the full page before `pastStatedEnd` (a slice of its body): a page there that holds them again is
    /// the last page repeated past the end, not more of the list.
    private var checkedAgainst: ArraySlice<UInt8>?
    /// Whether a check page past a full stated end fits under the route's `maxPages` and the client's `_max_pages`: a list
    /// of exactly that many full pages is complete, not cut (retest15 N6).
    private var hasRoomForCheckPage: Bool {
        Self.room(below: options.maxPages, used: knownCount) >= 1 && options.pageLimit.map { Self.room(below: $0, used: knownCount) >= 1 } ?? true
    }
    /// The index of the first page known ahead (`NextPages.all`), once the scheme has named them.
    private var firstNumberedPage: Int?
    /// Set once a guess that was numbered on an upstream's own link missed: it would miss again.
    private var isSpeculationStopped = false
    /// The index into `pending`'s pages up to which `Options.readAhead` was told.
    private var readAheadEnd = 0
    /// The page index (as in `urls`) up to which `Options.readAhead` was told of guesses.
    private var guessedAheadEnd = 0
    /// How many pages past the window `Options.readAhead` is told of; told again once half of them are taken. Each
    /// telling may wake the read-ahead's thread, which then takes the walk's CPU for a while on a busy machine (issue
    /// 13, twelfth pass: 16 pages a telling were ~30 wakes a 501-page walk); as many as a cache holds read ahead
    /// (`DiskStore.readAheadLimit`), so that half of them told again fits beside the half not yet taken.
    static let readAheadDistance = 64

    /// Whether the walk has run fetches as children of a task group (tests: a walk of pages at hand never makes one).
    package internal(set) var hasStartedGroup = false

    /// Whether the walk stopped early at the client's page or item cap (the answer is then partial by request), or ended at a
    /// page that may as well be more of the list (`endedOnRepeat`).
    package private(set) var wasTruncated = false
    /// The first page was shorter than `Options.windowPageSize` while the list went on: the walk failed there, and
    /// nothing of it was handed out.
    package private(set) var missedWindowPageSize = false
    /// Whether the walk ended at a full page at the stated end of the list with no room under its page caps for the
    /// check page past it (retest15 N6): complete as far as the walk can tell, but the total may be lower than the
    /// truth (review22 M2: a window that ends there links on).
    package private(set) var endedAtUncheckedStatedEnd = false
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
    package private(set) var foundListChanged = false

    /// The end the walk numbered its pages from, and the larger one a later page stated, when the list grew at its tail
    /// during the walk with no item walked moving (`StatedEndCheck`; review21 F3): the answer holds the pages numbered
    /// from the first end, and `_explain` says the end grew.
    package var statedEndGrowth: (from: StatedEnd, to: StatedEnd)? { statedEnd.grown }

    /// Whether the walk ended at a page that held the page before's items again (`PastEndRepeat`): past the list's end,
    /// or data that repeats with the page size; the answer is flagged truncated (`wasTruncated`), since it may be cut.
    package private(set) var endedOnRepeat = false

    /// Whether a page the scheme named ahead (from a total or a `last` link) came back empty, which ended the walk
    /// there short of the total (attack5 m2: an upstream that stated 1000 pages and had 3 was asked for all 1000).
    package private(set) var endedShortOfTotal = false

    /// How many pages the walk has in all, once the scheme has said (a total, a `last` link, a short page); nil before.
    package var pageCountIfKnown: Int? { isListComplete ? knownCount : nil }

    /// How many pages the walk knows of: built, and known ahead but not built yet.
    private var knownCount: Int { urls.count + (pending.map { $0.end - $0.next } ?? 0) }

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
        // its bytes (review16 B1: the past-the-end repeat check sliced an empty body). Plans leave bodies only for
        // schemes PageProxy numbers itself, so this is the repeat check's page alone, and the first two pages, which
        // `IgnoredPageNumber` compares (review19 B2: with the bodies left in files the check saw no items, and an
        // upstream that ignores the page number was answered 200 again after a restart).
        if page.bodyInFile != nil,
            nextToTake <= 2 || strategy.followsUpstream || pastEnd.remembers || strategy.mayRepeatPastEnd(after: page)
                || pastStatedEnd == nextToTake - 1
        {
            do throws(PaginationError) {
                page = try Self.withBodyRead(page)
            } catch {
                finish()
                throw error
            }
        }
        // The page is out: its URL, and whether a 404 there would have ended the walk, are not asked for again.
        urls.forget(below: nextToTake)
        if !openEnded.isEmpty { openEnded.remove(nextToTake - 1) }
        do {
            if nextToTake == 1 {
                firstPageItemCount = page.itemCount
                ignoredNumber.remember(firstPage: page)
                firstOverlap.remember(firstPage: page, mayRepeat: strategy.secondPageMayRepeat(afterFirst: page))
                try checkExpectedPages(after: page)
            }
            if nextToTake == knownCount && !isListComplete {
                // Reached by the link or cursor of the page before (or the first page): not that page again.
                if strategy.followsUpstream { try repeats.follow(page, wayOnHeader: strategy.wayOnHeader) }
                if pastStatedEnd == nextToTake - 1, let span = checkedAgainst, !span.isEmpty,
                    PageItemsMark.itemsSpan(of: page).elementsEqual(span)
                {
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
                        repeatedOfFirst = firstOverlap.repeated(in: page)
                        if repeatedOfFirst > 0 { measuredBy = 0 }
                    }
                    // Pages PageProxy numbers itself are compared; a page reached by the upstream's link numbers from its own.
                    try statedEnd.check(page, strategy: strategy, compares: !strategy.followsUpstream)
                    let next = try strategy.next(after: page, firstPageItemCount: measuredBy)
                    let past =
                        next.isNone && !strategy.followsUpstream ? strategy.pageAfterStatedEnd(page, firstPageItemCount: firstPageItemCount) : nil
                    if let past, try goesPastStatedEnd(to: past, from: &page) {
                        // A full page at the stated end, or past it: the total may be lower than the truth (review17 B10).
                    } else {
                        try append(next, after: page)
                    }
                    // The repeated items are not handed out twice (the page's place in the list was read above).
                    if repeatedOfFirst > 0 { page.items.removeFirst(repeatedOfFirst) }
                }
            } else if pending != nil {
                repeats.skip()
                if nextToTake == 2 && firstNumberedPage == 1 { try ignoredNumber.check(secondPage: page) }
                try statedEnd.check(page, strategy: strategy)
                // Its next is read for the links on it alone, unreadable ones ignored; the page itself is checked (an
                // offset page longer than its limit: the upstream reads another limit, which no revalidating walk mends),
                // before its size is compared with the pages numbered beside it (review23 F4).
                try strategy.checkNumbered(page)
                try numberedSize.check(page, index: nextToTake - 1)
                let next = try? strategy.next(after: page)
                try checkLinkOrigin(next, on: page)
                // The last page a total or a `last` link numbered ahead still links on: the list is longer than it said
                // (it grew during the walk; DRF and Tastypie count per request). Its links are followed on, as a walk
                // with no total would (attack7 F2: a 200 with the first pages only, and no word of it). Not past a cap.
                // Only a scheme whose every page states its own end links on: a numbered page's `next` is arithmetic on
                // that page's own size (a short last page would number pages past the end; review11).
                if nextToTake == knownCount, isListComplete, !wasTruncated, strategy.statesEachEnd, let next, !next.isNone {
                    isListComplete = false
                    pending = nil
                    // The stated total said the list ended here: a 404 at the page linked past it agrees, and ends the
                    // walk quietly (a cached last page that linked on when the list was longer; review11).
                    pastStatedEnd = urls.count
                    try append(next, after: page)
                } else if nextToTake == knownCount, isListComplete, !wasTruncated, !strategy.statesEachEnd,
                    let after = strategy.pageAfterStatedEnd(page, firstPageItemCount: firstPageItemCount)
                {
                    // The last page a total numbered is full: the total may be lower than the truth (PostgREST's
                    // estimated counts; review17 B10), so the page after it is asked for; empty, or a 404, 410 or 416,
                    // it ends the walk.
                    _ = try goesPastStatedEnd(to: after, from: &page)
                } else if nextToTake < knownCount, strategy.statesEachEnd, next?.isNone == true {
                    // A page among them says it is the last: the pages numbered past it are past the list's end (a
                    // total that was too high; an upstream that answers any page past the end with its last page
                    // would repeat items; attack7 F3).
                    endShortOfTotal()
                }
            }
            if nextToTake == 1 { try checkWindowPageSize(page) }
        } catch {
            if error.isListChange { foundListChanged = true }
            finish()
            throw error
        }
        if let limit = options.itemLimit, itemsTaken + page.itemCount >= limit {
            let keep = limit - itemsTaken
            // A walk this page ended short of its total has nothing after it, whatever URLs the window built (review17 L8).
            // Nor has one whose only page after it is the check past a full stated end (retest15 N6).
            let onlyTheCheckAfter = checkAfterStatedEnd == nextToTake && knownCount == nextToTake + 1
            let hadMore = page.itemCount > keep || (!endedShortOfTotal && !onlyTheCheckAfter && (nextToTake < knownCount || !isListComplete))
            page.truncateItems(to: keep)
            wasTruncated = wasTruncated || hadMore
            finish()
        }
        itemsTaken += page.itemCount
        if let firstNumberedPage, nextToTake > firstNumberedPage, nextToTake < knownCount, page.itemCount == 0, !isFinished {
            endShortOfTotal()
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

    /// The next page's fetch failed: the walk ends, quietly (nil) when it was the end of an open-ended walk.
    func fetchFailed(_ error: any Error) throws(PaginationError) -> Page? {
        finish()
        // DRF and many Rails APIs answer 404 for the page past the last one: with no total, that is the end.
        if case .upstreamStatus(_, _, let status, _)? = error as? PaginationError,
            (openEnded.contains(nextToTake) && strategy.endStatuses.contains(status))
                || (pastStatedEnd == nextToTake && (status == 404 || status == 410 || status == 416 || strategy.endStatuses.contains(status)))
        {
            return nil
        }
        // The page after a full stated end is a check the total asked for nothing of (review17 B10): whatever it fails
        // with, the list ends at its stated total, as it did before the check was asked (retest15 N4: a 400, 422 or 5xx
        // there failed a whole list).
        if checkAfterStatedEnd == nextToTake, !Task.isCancelled, let error = error as? PaginationError {
            switch error {
            case .upstreamStatus, .upstreamFailed: return nil
            default: break
            }
        }
        // Whatever a fetch ended with once the walk's client left (its socket closed under it) is no failure.
        guard !Task.isCancelled, let error = error as? PaginationError else { throw .cancelled }
        throw error
    }

    /// Goes on past `page`, full at the stated end of the list or past it, to `url`: the total may be lower than the
    /// truth (review17 B10). The first time, one check page (`checkAfterStatedEnd`), if the caps leave room for it
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
    private func goesPastStatedEnd(to url: PageURL, from page: inout Page) throws(PaginationError) -> Bool {
        if checkAfterStatedEnd == nil {
            guard hasRoomForCheckPage else {
                endedAtUncheckedStatedEnd = true
                return false
            }
            isListComplete = false
            pending = nil
            checkAfterStatedEnd = urls.count
        }
        page = try Self.withBodyRead(page)
        pastStatedEnd = urls.count
        checkedAgainst = PageItemsMark.itemsSpan(of: page)
        try append(.one(url), after: page)
        return true
    }

    /// `page` with its body read from the file the cache left it in, if it did.
    private static func withBodyRead(_ page: Page) throws(PaginationError) -> Page {
        guard let read = page.withBodyRead() else {
            throw .cannotContinue(page: page.number, reason: "its cached copy changed on disk after it was checked; retry")
        }
        return read
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
    private func endShortOfTotal() {
        endedShortOfTotal = true
        pending = nil
        finish()
    }

    private func discardSpeculation() {
        discarded += speculative.map(\.fetch)
        speculative = []
    }

    private func append(_ next: NextPages, after page: Page) throws(PaginationError) {
        let count: Int
        switch next {
        case .none:
            isListComplete = true
            discardSpeculation()
            return
        case .one: count = 1
        case .all(let pages): count = pages.count
        }
        // Both caps are checked on the count, before any URL is built: an upstream may claim 10^18 pages.
        var kept = count
        if let limit = options.pageLimit, count > Self.room(below: limit, used: knownCount) {
            kept = Self.room(below: limit, used: knownCount)
            isListComplete = true
            wasTruncated = true
        }
        guard kept <= Self.room(below: options.maxPages, used: knownCount) else { throw .tooManyPages(limit: options.maxPages) }
        switch next {
        case .none: return
        case .one(let url):
            if kept == 1 {
                try check(url, number: urls.count + 1, after: page)
                if !strategy.endStatuses.isEmpty { openEnded.insert(urls.count) }
                adopt(url)
            }
        case .all(let pages):
            isListComplete = true
            // Every numbered page is the template with one parameter set: its origin is the template's.
            guard pages.template.origin == origin || kept == 0 else {
                throw .foreignOrigin(page: page.number, refused: pages.template.origin.description, allowed: origin.description)
            }
            pending = (pages, 0, kept)
            firstNumberedPage = urls.count
            numberedSize.numbered(strategy.itemsPerNumberedPage(pages, after: page), from: urls.count, count: pages.count)
            // Speculative fetches are matched against the first pages now; the rest are built as the window needs them.
            while !speculative.isEmpty, let url = try takePending() { adopt(url) }
        }
        if isListComplete { discardSpeculation() }
    }

    /// The guards every page URL passes before it is requested.
    private func check(_ url: PageURL, number: Int, after page: Page) throws(PaginationError) {
        // DESIGN.md: a next link elsewhere is an error, never a request (SSRF).
        guard url.origin == origin else {
            throw .foreignOrigin(page: page.number, refused: url.origin.description, allowed: origin.description)
        }
        guard isNew(url) else { throw .loop(page: number, url: url) }
    }

    /// A numbered page's own next link is not followed (its URL was built from the template), but one that leaves the
    /// origin still ends the walk, as it would a sequential one: the upstream is not what the route describes, or is
    /// hostile (DESIGN.md: a next link elsewhere is an error). Other paths on the origin are fine (GitHub's later
    /// links point to /repositories/<id>/…), and a link that cannot be read is ignored, since nothing follows it.
    private func checkLinkOrigin(_ next: NextPages?, on page: Page) throws(PaginationError) {
        let linked: PageURL.Origin
        switch next {
        case .one(let url): linked = url.origin
        case .all(let pages): linked = pages.template.origin
        case NextPages.none?, nil: return
        }
        guard linked == origin else {
            throw .foreignOrigin(page: page.number, refused: linked.description, allowed: origin.description)
        }
    }

    /// Appends a built URL; a speculative fetch that guessed it becomes the real one, a wrong guess cancels the rest.
    private func adopt(_ url: PageURL) {
        if let guess = speculative.first, guess.url.isSamePage(as: url), nextToLaunch == urls.count {
            fetching[urls.count] = guess.fetch
            nextToLaunch += 1
            speculative.removeFirst()
        } else {
            if let guess = speculative.first, !guess.url.isSamePage(as: url) { learn(missed: guess.url, actual: url) }
            discardSpeculation()
        }
        urls.append(url)
    }

    /// The walk's first page, against the size a window counted its pages by (`Options.windowCheck`); the list goes
    /// on when more pages are known, or were cut by the window's page count.
    private func checkWindowPageSize(_ page: Page) throws(PaginationError) {
        guard let check = options.windowCheck, !check.holds(page, listGoesOn: wasTruncated || knownCount > 1 || !isListComplete) else { return }
        missedWindowPageSize = true
        throw .cannotContinue(
            page: 1,
            reason: "it holds \(page.itemCount) items where the window counted pages of \(check.size): the upstream serves fewer a "
                + "page than asked, so the window's pages cannot be counted by that size")
    }

    /// A scheme that knows the page count only from a total (a next URL with DRF's `count`) is refused at the first
    /// page when the count is over the route's limit, not after `maxPages` pages.
    private func checkExpectedPages(after page: Page) throws(PaginationError) {
        guard let expected = strategy.expectedPageCount(after: page) else { return }
        let wanted = min(expected, options.pageLimit ?? Int.max)
        guard wanted <= options.maxPages else { throw .tooManyPages(limit: options.maxPages) }
    }

    /// After a guess missed the page the upstream named: re-base later guesses on the upstream's link once, when
    /// numbering that link's path reproduces it; otherwise stop guessing, here and (through the memory) in later
    /// walks from the same first URL. A guess that cannot be confirmed is never sent twice.
    private func learn(missed guess: PageURL, actual: PageURL) {
        let first = firstURL
        let memory = options.lookaheadMemory
        let guessedOnFirstURL = urls.count == 1 && memory?.lesson(for: first) == nil
        if guessedOnFirstURL, let rebased = strategy.guessNext(after: first.replacingPath(actual.path)), rebased.isSamePage(as: actual) {
            memory?.learn(.rebase(path: actual.path), for: first)
            return
        }
        memory?.learn(.never, for: first)
        isSpeculationStopped = true
    }

    /// The URL the next guess is numbered from: the last guess, else the last known page; for the first page, where
    /// earlier walks saw the links point (or nowhere, if their guesses could not be confirmed).
    private func guessBase() -> PageURL? {
        if let last = speculative.last?.url { return last }
        guard let last = urls.last else { return nil }
        guard urls.count == 1, let lesson = options.lookaheadMemory?.lesson(for: last) else { return last }
        switch lesson {
        case .never: return nil
        case .rebase(let path): return last.replacingPath(path)
        }
    }

    /// Whether `url` is a page URL of the walk already, the first page's included.
    private func hasSeen(_ url: PageURL) -> Bool {
        if seen.isEmpty { seen.insert(PageURLDigest(firstURL)) }
        return seen.contains(PageURLDigest(url))
    }

    /// Enters `url` among the walk's page URLs; false when it was one already. One hash of the URL, not two (issue 13,
    /// eighth pass: `contains` then `insert` were ~5 % of a walk through the cache).
    private func isNew(_ url: PageURL) -> Bool {
        if seen.isEmpty { seen.insert(PageURLDigest(firstURL)) }
        return seen.insert(PageURLDigest(url)).inserted
    }

    /// Builds and checks the next URL of the pages known ahead; nil when none is left.
    private func takePending() throws(PaginationError) -> PageURL? {
        guard let (pages, index, end) = pending, index < end else { return nil }
        pending = (pages, index + 1, end)
        let url = pages.url(at: index)
        guard isNew(url) else { throw .loop(page: urls.count + 1, url: url) }
        return url
    }

    /// Builds the URLs the window reaches (up to `concurrency` pages past the next one to take), no more.
    private func buildWindow() throws(PaginationError) {
        while urls.count < min(knownCount, windowEnd), let url = try takePending() {
            urls.append(url)
        }
    }

    /// How many more pages fit under `limit` when `used` are taken; never negative, never overflowing.
    private static func room(below limit: Int, used: Int) -> Int {
        limit > used ? limit - used : 0
    }

    /// One past the last page the concurrency window allows, saturating for a huge `concurrency`.
    private var windowEnd: Int {
        let (end, overflow) = nextToTake.addingReportingOverflow(max(1, options.concurrency))
        return overflow ? Int.max : end
    }

    private func launchWindow() {
        guard !isFinished else { return }
        // The read-ahead first: its thread starts on the pages past the window while this one reads the window's in
        // place (issue 13, twelfth pass: told after them, it started a page or more behind the walk, in lockstep).
        tellReadAhead()
        let end = min(urls.count, windowEnd)
        while nextToLaunch < end {
            let index = nextToLaunch
            let url = urls[index]
            if let response = options.cachedPage?(url, index + 1) {
                let read = Result { () throws(PaginationError) in
                    try Self.page(from: response, url: url, number: index + 1, paths: scanPaths)
                }
                readInPlace.insert(read, at: index)
            } else {
                fetching[index] = decideFetch(url, number: index + 1, isGuess: false)
            }
            nextToLaunch += 1
        }
        launchSpeculation(windowEnd: windowEnd)
    }

    /// Tells `Options.readAhead` of the next pages, half a distance at a time: those known ahead, else guesses.
    private func tellReadAhead() {
        guard let readAhead = options.readAhead, !isFinished else { return }
        let distance = Self.readAheadDistance
        if let (pages, next, end) = pending {
            let until = min(end, next + distance)
            // A mark moves only once the pages were told: not wanted now, they are offered again at the next page. No
            // page past the window: nothing to tell (a telling of none was a hop to the read-ahead's thread for nothing).
            guard max(readAheadEnd, next) < until, readAheadEnd <= next + distance / 2, readAhead.isWanted() else { return }
            let indices = max(readAheadEnd, next)..<until
            readAheadEnd = until
            // The pages known ahead follow the page before the first of them (`append`): index i is page number
            // firstNumberedPage + i + 1, as `launchWindow` numbers them.
            readAhead.read((firstNumberedPage ?? 0) + indices.lowerBound + 1) { indices.map(pages.url(at:)) }
            return
        }
        // Guesses only once the first page said the pages are known one by one (not before it says how many).
        let known = urls.count
        // `isWanted` first: a walk through pages in memory is not wanting, and a guess a page was ~7 % of it (issue 13).
        guard nextToTake > 0, !isListComplete, !isSpeculationStopped, guessedAheadEnd <= known + distance / 2, let last = urls.last,
            readAhead.isWanted(), strategy.guessNext(after: last) != nil
        else { return }
        let (from, until, strategy, origin) = (max(guessedAheadEnd, known), known + distance, strategy, origin)
        guessedAheadEnd = until
        readAhead.read(from + 1) {
            var (guesses, url) = ([PageURL](), last)
            for index in known..<until {
                guard let guess = strategy.guessNext(after: url), guess.origin == origin else { break }
                if index >= from { guesses.append(guess) }
                url = guess
            }
            return guesses
        }
    }

    /// With no total known, fetches up to `lookahead` guessed pages past the last known one, within the window.
    private func launchSpeculation(windowEnd: Int) {
        let lookahead = strategy.lookahead
        guard lookahead > 0, !isListComplete, !isSpeculationStopped, nextToLaunch == urls.count else { return }
        let limit = min(options.maxPages, options.pageLimit ?? Int.max)
        while speculative.count < lookahead, urls.count + speculative.count < min(windowEnd, limit) {
            guard let previous = guessBase(), let guess = strategy.guessNext(after: previous),
                guess.origin == origin, !hasSeen(guess)
            else { return }
            let number = urls.count + speculative.count + 1
            speculative.append((guess, decideFetch(guess, number: number, isGuess: true)))
        }
    }

    /// A fetch the walk has decided on, named for its driver.
    typealias FetchID = Int

    /// A fetch to start, as a child of the walk's group.
    struct Launch {
        let fetch: FetchID
        let url: PageURL
        let number: Int
        /// A speculative fetch (`lookahead`), which the walk may discard alone.
        let isGuess: Bool
    }

    private func decideFetch(_ url: PageURL, number: Int, isGuess: Bool) -> FetchID {
        lastFetchID += 1
        launches.append(Launch(fetch: lastFetchID, url: url, number: number, isGuess: isGuess))
        return lastFetchID
    }

    /// The work of one fetch, to run off the walker (it captures nothing of it).
    func loader(for launch: Launch) -> @Sendable () async -> Result<Page, PaginationError> {
        let (url, number, paths, fetch) = (launch.url, launch.number, scanPaths, fetch)
        return {
            do throws(PaginationError) {
                return .success(try await Self.load(url, number: number, paths: paths, fetch: fetch))
            } catch {
                return .failure(error)
            }
        }
    }

    private static func load(
        _ url: PageURL, number: Int, paths: ScanPaths, fetch: PageFetcher
    ) async throws(PaginationError) -> Page {
        let response = try await fetch(url, number)
        return try page(from: response, url: url, number: number, paths: paths)
    }

    /// A fetched page's response as a page: its items and values, from the cache's stored scan or scanned now (also
    /// for an answer that reads a page with no walk: `InMemoryAnswer`).
    package static func page(
        from response: UpstreamResponse, url: PageURL, number: Int, paths: ScanPaths
    ) throws(PaginationError) -> Page {
        guard (200..<300).contains(response.status.code) else {
            throw .upstreamStatus(page: number, url: url, status: response.status.code, body: UpstreamErrorBody(response))
        }
        let scanned: ScannedPage
        var response = response
        // A page the cache scanned when it stored it (for these paths) is not scanned again.
        if let stored = response.storedScan?.page(for: paths) {
            scanned = stored
        } else {
            // A body left in its file is read to be scanned (the cache leaves one only for its own walk's paths; never an
            // empty body scanned as the page, review16 B3).
            if let inFile = response.bodyInFile {
                guard let bytes = inFile.read() else {
                    throw .cannotContinue(page: number, reason: "its cached copy changed on disk after it was checked; retry")
                }
                response.body = bytes
                response.storedFile = inFile.file
            }
            do {
                scanned = try paths.scan(response.body)
            } catch {
                throw .invalidJSON(page: number, url: url, error: error)
            }
        }
        var page = Page(
            number: number, url: url, status: response.status, headers: response.headers, body: response.body,
            items: scanned.items, values: scanned.values)
        page.storedChecksum = response.storedChecksum
        page.bodyFile = response.storedFile
        page.bodyInFile = response.bodyInFile
        if let scan = response.storedScan, scan.signature == paths.signature { page.storedIsCommaRun = scan.isCommaRun }
        return page
    }
}
