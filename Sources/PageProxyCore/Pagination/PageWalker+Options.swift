/// What a walk is told by its route, its client and its server.
extension PageWalker {
    package struct Options: Sendable {
        package var itemsPath: JSONPath = .root
        package var concurrency = 4
        /// The route's runaway guard: needing more pages is an error. It also bounds memory: a scheme describes the
        /// pages it knows ahead (`NumberedPages`), and URLs are built only once their count is within this limit.
        package var maxPages = 1000
        /// The client's cap (`_max_pages`): the walk stops quietly after this many pages.
        package var pageLimit: Int? = nil
        /// For a window's walk from the list's first item whose `pageLimit` holds the window's own page count (pages of a
        /// size, full of its items): once the walk shows the list filtered (its pages hold fewer items than the positions
        /// they span), that count cuts the window short, so the walk is cut by this alone from then on: the client's
        /// `_max_pages`, or nil for none (filtwin21: 130 windows of `bench/offset-filter-grid.py` answered a few pages'
        /// items under a 200, `[12,14]` for `[12,14,16,18,20]`).
        package var pageLimitOnceFiltered: Int? = nil
        /// Whether the walk is a window's from the first item it hands out (no jump): `pageLimitOnceFiltered` replaces
        /// `pageLimit` once the walk shows the list filtered, and the first page's estimate of the pages wanted
        /// (`checkExpectedPages`) counts the pages the window's items need at the first page's count, not the whole
        /// list's (filtwin21: a window walked from the first page of a long filtered list, `_offset=5&_limit=5` of 100,000
        /// positions, was refused `too_many_pages` at once).
        package var windowFromWalkStart = false
        /// The item index a window's walk that jumped to an offset starts at (0: no jump), checked or not
        /// (`windowCheck`): such a walk that shows the list filtered fails with `windowMetFilter` (`meetFilter`).
        package var windowFirstItem = 0
        /// The client's cap (`_max_items`): the walk stops quietly once this many items are out.
        package var itemLimit: Int? = nil
        /// How a window (`_offset`/`_limit`) that counted `pageLimit` and its jump by a page size checks that size on
        /// the first page. A first page that proves it wrong (the upstream caps the size; review17 B9: GitHub's 100
        /// under a `per_page=500`, JupyterHub's 200 under a route's `limit: 500`) fails the walk there, before the
        /// page is handed out, with `missedWindowPageSize` set: the window is walked again from the first page.
        package var windowCheck: ItemWindow.FirstPageCheck? = nil
        /// What a window's earlier walk saw the upstream serve a page, its cap, when the window is walked again by it
        /// (`ItemWindow.walkingAgain`): a first page holding that many is full, as a later page holding as many as the
        /// first is, and one at the stated end of the list is followed by the page after it (review22 M2: an offset
        /// window jumped past a low total on a capped upstream took the capped page for the list's last, 20 of 30 items).
        package var servedPageSize: Int? = nil
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
}
