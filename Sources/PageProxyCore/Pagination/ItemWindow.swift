/// `_offset=N&_limit=M`: items N … N+M−1 of a walk, whatever the upstream's scheme (DESIGN.md "Callers may also ask
/// for less": an infinitely scrolling client pages through any upstream with one scheme).
///
/// Only the pages the window needs are walked. A numbered scheme (page number, offset) whose page size is known jumps
/// straight to the page that holds item N, unless the client's query already chose a page or an offset; other
/// schemes can only walk from the first page (through the cache where it holds the pages). A window past the end is
/// empty, never an error.
public struct ItemWindow: Sendable, Equatable {
    /// The index of the first item wanted, from 0.
    public let offset: Int
    /// How many items are wanted, at least 1.
    public let limit: Int

    /// A window of `limit` items from `offset`; a negative offset is read as 0 and a limit below 1 as 1.
    public init(offset: Int, limit: Int) {
        self.offset = max(0, offset)
        self.limit = max(1, limit)
    }

    /// One past the last item of the window, saturating.
    public var end: Int {
        let (end, overflow) = offset.addingReportingOverflow(limit)
        return overflow ? Int.max : end
    }

    /// How a walk serves a window.
    package struct Plan: Sendable, Equatable {
        /// The URL the walk starts from: the route's, or one numbered to start at the page that holds the window.
        package var base: PageURL
        /// The item index (from 0) of the first item of the first page walked: 0 unless the walk jumped.
        package var firstItem: Int
        /// How many pages the window spans from where the walk starts, when the page size is known.
        package var pageLimit: Int?
        /// The page size the window counted its pages (and its jump) by, when known: its first page proves it or
        /// not (`firstPageCheck`).
        package var pageSize: Int? { firstPageCheck?.size }
        /// How the walk's first page proves the size the window counted by (`PageWalker.Options.windowCheck`).
        package var firstPageCheck: FirstPageCheck?
        /// What an earlier walk of the window saw the upstream serve a page, when the window is walked again by it
        /// (`walkingAgain`): the walk takes it for the upstream's cap (`PageWalker.Options.servedPageSize`).
        package var servedSize: Int?
        /// How many items the walk hands out from where it starts: those before the window and the window's own.
        package var itemLimit: Int
        /// Items of the walk to drop before the window starts.
        package var skip: Int
        /// Whether the walk starts one page before the window's own page (`SteppedBackWindowPage`, or a jump past a stated
        /// total walked again from the page before): that page only tells the window's items from a repeat past the end,
        /// and the client's `_max_pages` counts from the window's page (`pageLimit(answering:)`).
        package var stepsBack: Bool

        /// - Parameters:
        ///   - pageSize: the size pages are counted by, and the first page checked against (`firstPageCheck`).
        ///   - servedSize: with no `pageSize`, what the upstream was seen to serve a page: pages are counted by it, one
        ///     more for good measure, and the first page is checked against it too (`walkingAgain`): an upstream whose cap
        ///     shrank since serves fewer, and the window is walked again by that (retest15 N3, review20 L2: the remembered
        ///     size answered short windows, flagged truncated, until the plan was dropped).
        ///   - steppedBack: the walk starts one page before the window's page, which is compared with it
        ///     (`FirstPageCheck.steppedBack`).
        init(
            base: PageURL, firstItem: Int, pageSize: Int?, window: ItemWindow, scheme: PaginationScheme? = nil, servedSize: Int? = nil,
            steppedBack: Bool = false
        ) {
            self.base = base
            self.firstItem = firstItem
            // An offset step back that lands on the list's first page is one too (fix22a LOW: the window's page the
            // list's second, a short first page failed the check at once, and the window walked again by what it served
            // jumped past a repeat-last upstream's end: `[1]` and a next for `_offset=10` of 5 items). Not a page number's:
            // its walk ends at a short page with no total, as the merged walk does, and asking past it cost 2 requests on
            // 153 of pastend21's `plain` cells and fixed none once the first page again is left to the walk's own checks
            // (fold23b; `SteppedBackWindowPage.remember`'s `listFirst`).
            let checksStepBack: Bool
            if case .pageNumber? = scheme { checksStepBack = steppedBack && firstItem > 0 } else { checksStepBack = steppedBack }
            firstPageCheck = (pageSize ?? servedSize).map {
                FirstPageCheck(size: $0, firstItem: firstItem, scheme: scheme, steppedBack: checksStepBack)
            }
            self.servedSize = pageSize == nil ? servedSize : nil
            stepsBack = steppedBack
            skip = window.offset - firstItem
            let (items, overflow) = skip.addingReportingOverflow(window.limit)
            itemLimit = overflow ? Int.max : items
            // Ceiling division on positive numbers; a huge window saturates and the route's maxPages decides.
            let wanted = itemLimit
            let pages = { (size: Int) in wanted / size + (wanted % size == 0 ? 0 : 1) }
            if let pageSize {
                pageLimit = pages(pageSize)
            } else if let servedSize, servedSize >= 1 {
                let (bound, overflow) = pages(servedSize).addingReportingOverflow(1)
                pageLimit = overflow ? nil : bound
            } else {
                pageLimit = nil
            }
        }
    }

    /// The plan for walking `scheme` (nil for an auto route: it walks from the start) from `base`.
    package func plan(scheme: PaginationScheme?, base: PageURL) -> Plan {
        switch scheme {
        case .pageNumber(let options)?:
            let (size, trusted) = AskedPageSize.of(base, parameter: options.sizeParameter, route: options.pageSize)
            // A size past the route's may be past the upstream's cap: walked from the first page (`AskedPageSize`).
            guard trusted else { return Plan(base: base, firstItem: 0, pageSize: nil, window: self) }
            guard let size, base.queryValue(options.pageParameter) == nil else {
                return Plan(base: base, firstItem: 0, pageSize: size, window: self)
            }
            // With no total named, the window's page alone cannot tell its items from the last page again past the end
            // (Django's `get_page()`; attack20 I): the walk starts one page before it (`SteppedBackWindowPage`).
            let back = options.namesNoTotal && offset / size >= 1 ? 1 : 0
            let pages = offset / size - back
            let (page, overflow) = options.firstPage.addingReportingOverflow(pages)
            guard !overflow else { return Plan(base: base, firstItem: 0, pageSize: size, window: self) }
            let jumped = base.settingQueryValue(String(page), for: options.pageParameter)
                .defaultingQueryValue(String(size), for: options.sizeParameter)
            return Plan(base: jumped, firstItem: pages * size, pageSize: size, window: self, scheme: scheme, steppedBack: back == 1)
        case .offset(let options)?:
            let (size, trusted) = AskedPageSize.of(base, parameter: options.limitParameter, route: options.limit)
            guard trusted else {
                // A size the upstream may cap counts no pages, but an offset lands on the window's first item whatever a
                // page holds: the walk starts there (retest14 N2: walked from 0, a `_max_pages` window over a capped
                // upstream ended before its first item, with no way on).
                guard offset > 0, base.queryValue(options.offsetParameter) == nil else { return Plan(base: base, firstItem: 0, pageSize: nil, window: self) }
                return Plan(base: base.settingQueryValue(String(offset), for: options.offsetParameter), firstItem: offset, pageSize: nil, window: self)
            }
            guard let size, base.queryValue(options.offsetParameter) == nil else {
                return Plan(base: base, firstItem: 0, pageSize: size, window: self)
            }
            // Aligned on the page size, so that windows of any size share the cached pages of one walk; one page before
            // with no total named, as for page numbers (retest20 #3: `[81…85]` for `_offset=100` of 100 items).
            let back = options.namesNoTotal && offset / size >= 1 ? size : 0
            let first = offset / size * size - back
            let jumped = base.settingQueryValue(String(first), for: options.offsetParameter)
                .defaultingQueryValue(String(size), for: options.limitParameter)
            return Plan(base: jumped, firstItem: first, pageSize: size, window: self, scheme: scheme, steppedBack: back > 0)
        // A size past the route's may be past the upstream's cap here too (GitHub serves at most 100 a page):
        // untrusted, it counts no pages (review17 B9).
        case .linkHeader(let options)?:
            return followed(base, sizeParameter: options.sizeParameter, route: options.pageSize)
        case .nextPageHeader(let options)?:
            return followed(base, sizeParameter: options.sizeParameter, route: options.pageSize)
        case .cursorInBody(let options)?:
            return followed(base, sizeParameter: options.sizeParameter, route: options.pageSize)
        case .hasMore(let options)?:
            return followed(base, sizeParameter: options.sizeParameter, route: options.pageSize)
        case .nextURLInBody?, nil:
            return Plan(base: base, firstItem: 0, pageSize: nil, window: self)
        }
    }

    /// The plan of a window whose first page did not hold what the size it counted by said (`FirstPageCheck`): an
    /// offset route still starts near the window's offset, one page of `served` before it (offsets land on the right
    /// items whatever a page holds),
    /// every other scheme at the first page; pages are counted by what the upstream served, `served`, with no check
    /// (review18 N2: walked again with no count at all, a long list met the route's `maxPages` before the window).
    /// `fromStart`: an offset route's too, once a walk showed an upstream that filters pages after cutting them
    /// (`PageWalker.windowMetFilter`): its offsets count items the answer never holds.
    /// `stepBack`: the offset walk starts one page of `served` before its jump, so that the page at the jump is the
    /// check page past a full stated end, compared with the page before it (`isFullPastStatedEnd`).
    /// `unchecked`: a walk again by `served` missed that size in its turn (retest19 F2: a window just past a capped list's
    /// end, whose page one served page before its offset held the list's last few items): walked from where the first
    /// walk started (an offset route's route-size multiple), counted by no size and so not checked, which cannot miss.
    /// An offset route that names no total steps back in its turn (a window at or past `served`): it starts one page of
    /// `served` before the window's offset, and that page is compared with the window's (`SteppedBackWindowPage`), as the
    /// first walk's was (fold24: walked again from the window's offset by a cap of 4, an upstream answering past its end
    /// with its last page as it cuts it answered `_offset=10` of 10 items with `[9]` and a next, the last page's items).
    package func walkingAgain(
        scheme: PaginationScheme?, base: PageURL, served: Int, fromStart: Bool = false, stepBack: Bool = false, unchecked: Bool = false
    ) -> Plan {
        if !fromStart, case .offset(let options)? = scheme,
            let size = AskedPageSize.of(base, parameter: options.limitParameter, route: options.limit).size,
            base.queryValue(options.offsetParameter) == nil
        {
            // One served page before the window's offset, or the route-size multiple below it, whichever is later: from
            // the multiple alone, a window far past it spent its pages below its first item (real18 F4: a cap of 7 under a
            // `limit` of 100, `_offset=250&_max_pages=2` walked 200, 207 and answered `[]`); from the offset itself, a
            // first page at the list's end under a total stated too high was short, and failed the size check (offset18).
            let multiple = offset / size * size
            // Only where the first walk's start had no page before the window's (the window's offset within `served` of
            // the multiple): from `offset - served` past the multiple it had one, and stepped back there, an upstream that
            // ignores the offset answered `200 []` for its `502` (fold24b's regression 1).
            let stepsBackNoTotal = options.namesNoTotal && !stepBack && !unchecked && offset >= served && offset - served < multiple
            let jump = stepBack ? max(0, multiple - served) : stepsBackNoTotal ? offset - served : max(multiple, offset - served)
            let first = unchecked ? multiple : jump
            let jumped = base.settingQueryValue(String(first), for: options.offsetParameter)
                .defaultingQueryValue(String(size), for: options.limitParameter)
            // Stepped back with no total, the scheme is read: a page before short of `served` (the list's end) is asked
            // past (`FirstPageCheck.asksPastShort`), not failed (`_offset=11` of 10 items: `[8,9,10]` at offset 7).
            return Plan(
                base: jumped, firstItem: first, pageSize: nil, window: self, scheme: stepsBackNoTotal ? scheme : nil,
                servedSize: unchecked ? nil : served, steppedBack: (stepBack || stepsBackNoTotal) && !unchecked)
        }
        // From the start over a filtering list: counted by no size (its pages hold fewer than the first served), a
        // slice of the walk the merged answer is.
        return Plan(base: base, firstItem: 0, pageSize: nil, window: self, servedSize: fromStart || unchecked ? nil : served)
    }

    private func followed(_ base: PageURL, sizeParameter: String?, route: Int?) -> Plan {
        let (size, trusted) = AskedPageSize.of(base, parameter: sizeParameter, route: route)
        return Plan(base: base, firstItem: 0, pageSize: trusted ? size : nil, window: self)
    }
}

extension ItemWindow {
    /// Whether a window's first page is what the size the window counted by says it is (review17 B9): the upstream
    /// may serve fewer a page than asked (GitHub and GitLab 100, JupyterHub 200, DRF its `max_page_size`), and then
    /// the window's page count ends the walk short of the window and a numbered jump lands on other items.
    package struct FirstPageCheck: Sendable, Equatable {
        /// The page size the window counted pages by.
        package let size: Int
        /// The index of the first page's first item, as the jump counted it (0 without a jump).
        let firstItem: Int
        /// The scheme, to read a stated total from the page (`PaginationScheme.totalItems(on:)`); nil: none read.
        let scheme: PaginationScheme?
        /// The walk starts one page before the window's page, and the window's page is compared with it
        /// (`SteppedBackWindowPage`): a page there short of the size with no total is asked past.
        package let steppedBack: Bool

        init(size: Int, firstItem: Int, scheme: PaginationScheme?, steppedBack: Bool = false) {
            self.size = size
            self.firstItem = firstItem
            self.scheme = scheme
            self.steppedBack = steppedBack
        }

        /// Whether `page`, the walk's first, agrees with the size: not short of it while the list goes on, and, after
        /// a jump under a stated total, holding as many items as the total leaves from there (a jump to the last
        /// page by a size the upstream caps lands on an earlier page, full where the last would be short).
        package func holds(_ page: Page, listGoesOn: Bool) -> Bool {
            // The page before the window's, short with no total: the list's last page or the upstream's cap, which the
            // window's page, asked next, tells apart (`asksPastShort`).
            if asksPastShort(page) { return true }
            if page.itemCount < size && listGoesOn { return false }
            // A jumped page longer than the size: the upstream serves more a page than asked, and the jump counted by
            // the wrong size (review18 N4: items 250–259 answered as 100–109).
            if firstItem > 0 && page.itemCount > size { return false }
            guard firstItem > 0 else { return true }
            // A page-number jump lands on other items when the upstream serves fewer a page than the size (an offset lands
            // on the window's own whatever a page holds): walked again from the first page, which costs pages rather than
            // answering other items under a 200.
            guard let total = scheme?.totalItems(on: page) else {
                // Short of the size with no total to tell: the list's last page, or an earlier one of an upstream capping
                // the size below the route's (review22 L1: ids 40–49 answered for 100–109).
                return !jumpsByPageNumber || page.itemCount == 0 || page.itemCount >= size
            }
            // At or past the stated total it holds nothing, or the total or the size is wrong (review22 M1: an upstream
            // capping the size served its page 3 of 20, ids 40–59, for items 100–119). An offset lands on the window's
            // items whatever the size, but a page there short of the size is the list's end or the upstream's cap, which
            // only a walk by what it served tells apart (review22 M2: 20 items of a 30 window, under a 200 that ended
            // the scroll, where the list went on).
            // (An offset page there holding items: the total is low, or the upstream answers past its end with its last
            // page; `isFullPastStatedEnd`.)
            guard total > firstItem else { return page.itemCount == 0 }
            return page.itemCount == min(size, total - firstItem)
        }

        /// Whether `page`, the walk's first, jumped by offset to or past the stated total, holds items: the total is
        /// low, or the upstream answers past its end with its last page (Django's `get_page()`): only the page before
        /// tells, and the window is walked again from there (`ItemWindow.walkingAgain`'s `stepBack`; review25 L6: a
        /// scroll got the last page's items again under every offset past the end, linking on for ever).
        package func isFullPastStatedEnd(_ page: Page) -> Bool {
            guard firstItem > 0, !jumpsByPageNumber, page.itemCount > 0, let total = scheme?.totalItems(on: page) else { return false }
            return total <= firstItem
        }

        /// For `page`, the walk's first, jumped by offset and ending exactly at the stated total short of the size: its
        /// count, the size it is taken full at, so that the page past the total is asked (`pageAfterStatedEnd`). The
        /// list's end, or an upstream's cap under a total that is low (PostgREST's estimated counts), which only that
        /// page tells apart (attack20 F: a cap of 7 under a count of 17 for 20 items, `_offset=13` answered 13–16 and
        /// ended, where the merged answer goes on to 19). One more request for a window at the list's end.
        package func fullAtStatedEnd(_ page: Page) -> Int? {
            guard firstItem > 0, !jumpsByPageNumber, page.itemCount > 0, page.itemCount < size,
                let total = scheme?.totalItems(on: page), firstItem + page.itemCount == total
            else { return nil }
            return page.itemCount
        }

        /// Whether `page`, the walk's first, one page before the window's, is short of the size with no total: the walk
        /// asks the page after it all the same (`SteppedBackWindowPage`; an offset walk does so on its own, asking as
        /// many as the short page served).
        /// (A window walked again from the page before a stated total's jump counts by what was served, and reads no
        /// total here: it never asks past a short page.)
        package func asksPastShort(_ page: Page) -> Bool {
            guard steppedBack, let scheme else { return false }
            return page.itemCount > 0 && page.itemCount < size && scheme.totalItems(on: page) == nil
        }

        /// Whether the window jumped by page number (an offset lands on the window's items whatever a page holds).
        var jumpsByPageNumber: Bool {
            if case .pageNumber? = scheme { true } else { false }
        }
    }
}

/// Drops the items of a walk that come before its window, page by page.
package struct ItemWindowCut: Sendable {
    private var remaining: Int

    package init(skip: Int) {
        remaining = max(0, skip)
    }

    /// Removes from the front of `page` the items still to skip.
    package mutating func apply(to page: inout Page) {
        guard remaining > 0 else { return }
        let dropped = min(remaining, page.itemCount)
        page.items.removeFirst(dropped)
        remaining -= dropped
    }
}

extension ItemWindow.Plan {
    /// Whether the walk starts past the first page (a numbered jump).
    package var jumped: Bool { firstItem > 0 }

    /// `itemLimit` with the answer's own cap on items (`_max_items`, the route's `maxItems`) counted from the window's
    /// start, not from where the walk starts (review17 B3: the skipped items counted against it, and a window over a
    /// route's `maxItems` was an endless run of empty answers).
    package func itemLimit(answering cap: Int?) -> Int {
        guard let cap else { return itemLimit }
        let (capped, overflow) = skip.addingReportingOverflow(cap)
        return min(itemLimit, overflow ? Int.max : capped)
    }

    /// The client's `_max_pages`, `cap`, as the walk counts pages: from where it starts, so one more when it starts a page
    /// before the window's (`stepsBack`), which the client never asked for (closing-41 MEDIUM: a no-total offset window
    /// `_offset=150&_limit=100&_max_pages=2` answered 10 items, pages 120 and 140, where it answered 30 before it stepped
    /// back); nil for no cap.
    package func walkPages(answering cap: Int?) -> Int? {
        guard let cap, stepsBack else { return cap }
        let (pages, overflow) = cap.addingReportingOverflow(1)
        return overflow ? cap : pages
    }

    /// The walk's page cap: the window's own page count and the client's `_max_pages` (`walkPages(answering:)`).
    package func pageLimit(answering cap: Int?) -> Int? {
        [walkPages(answering: cap), pageLimit].compactMap { $0 }.min()
    }

    /// The pages the window spans from its own page (the page a walk steps back to is not the window's), when counted:
    /// what the client's `_max_pages` is compared with.
    package var windowOwnPages: Int? {
        pageLimit.map { stepsBack ? max(1, $0 - 1) : $0 }
    }

    /// For a jump, the statuses that on the page jumped to mean "past the last page" (DRF answers 404 "Invalid
    /// page."): the window is then empty, never an error. Empty when the walk did not jump.
    package func endStatuses(of scheme: PaginationScheme?) -> Set<Int> {
        guard jumped else { return [] }
        switch scheme {
        case .pageNumber(let options)?: return options.endStatuses
        case .offset(let options)?: return options.endStatuses
        default: return []
        }
    }

    /// A page with no items at `itemsPath` (`[]`, `{"results":[]}`, `{"data":{"items":[]}}`), standing for a page
    /// past the end; nil for a path through an array index, which no small body can stand for, or a key that would
    /// need escapes.
    package static func emptyPage(itemsPath: JSONPath) -> [UInt8]? {
        var text = "[]"
        for component in itemsPath.components.reversed() {
            guard case .key(let key) = component else { return nil }
            // Items paths come from the config; one that would need escapes gets no stand-in.
            guard !key.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }) else { return nil }
            text = "{\"" + key + "\":" + text + "}"
        }
        return Array(text.utf8)
    }
}
