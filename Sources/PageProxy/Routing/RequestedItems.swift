import PageProxyCore

/// What one request asked of the walk's pages besides their items (DESIGN.md "Callers may also ask for less"): the
/// window's cut (`_offset`, `_limit`) and the selected fields (`_fields`), applied to each page as the walk hands it
/// out; the total the upstream states; and the account of the walk (`WalkRecord`) that each page is entered in.
///
/// Used by one request's task only.
final class RequestedItems {
    let window: ItemWindow?
    let fields: FieldSelection?
    let record: WalkRecord
    private var cut: ItemWindowCut
    /// The index (from 0) of the walk's first item: a window's jump (0 without a window).
    private let firstItem: Int
    private let scheme: PaginationScheme?
    private let request: HTTPRequestHead
    private var isFirst = true
    /// The number of items the upstream says it has, once a page has said (or the scheme detector did).
    private(set) var total: Int?
    /// The items handed out so far, after the window's cut.
    private var handedOut = 0
    /// The answer's own cap on items (`_max_items`, the route's `maxItems`), which may end a window early.
    private let itemCap: Int?
    /// Whether the client's `_max_pages` may end a window's walk before the window's end: it allows fewer pages than
    /// the window spans, or the window counts none (a scheme that follows links, a size not trusted).
    private let pageCapMayCut: Bool
    /// The list's items before the walk's first page (`ItemsBeforeWalk`), once that page is shaped.
    private var itemsBeforeWalk = 0

    /// - Parameters:
    ///   - scheme: the route's scheme, or the detected one of an auto route; nil when none (a single page).
    ///   - knownTotal: a total already known (an auto route's, from its first page).
    ///   - itemCap: the answer's own cap on items (`_max_items`, the route's `maxItems`).
    ///   - windowPages: how many pages the window spans from its own page (not the page before it a walk steps back to),
    ///     when its plan counted them.
    init(
        controls: ProxyControls, skip: Int, scheme: PaginationScheme?, knownTotal: Int?, request: HTTPRequestHead, record: WalkRecord,
        itemCap: Int? = nil, windowPages: Int? = nil
    ) {
        window = controls.window
        self.itemCap = itemCap
        pageCapMayCut = controls.maxPages.map { cap in windowPages.map { cap < $0 } ?? true } ?? false
        fields = controls.fields
        cut = ItemWindowCut(skip: skip)
        firstItem = controls.window.map { max(0, $0.offset - skip) } ?? 0
        self.scheme = scheme
        self.request = request
        self.record = record
        total = knownTotal
        record.setTotalItems(knownTotal)
    }

    /// `page` as the client asked for it: the items before the window dropped, the fields selected; entered in the
    /// walk's account.
    func shape(_ page: Page, walker: PageWalker) -> Page {
        if isFirst {
            isFirst = false
            itemsBeforeWalk = scheme.map { ItemsBeforeWalk.count(firstPage: page, scheme: $0) } ?? 0
            if total == nil, let stated = scheme?.totalItems(on: page) {
                total = stated
                record.setTotalItems(stated)
            }
        }
        var shaped = page
        cut.apply(to: &shaped)
        if let fields { shaped = fields.project(shaped) }
        handedOut += shaped.itemCount
        record.taken(number: page.number, url: page.url, items: shaped.itemCount, pagesKnown: walker.pageCountIfKnown)
        return shaped
    }

    /// `PageProxy-Total` when the total is known, and for a window the `Link` to the windows before and after it.
    /// - Parameter walkEnded: whether the walk is over (a merged answer); an NDJSON head is sent after the first page,
    ///   when whether more items follow is known only from a total: without one, `next` is always there (a window
    ///   past the end is an empty answer), unless the window has no end (`_offset` alone) or a `_max_pages` may cut
    ///   it (`headLeavesOutNext`).
    func headers(walker: PageWalker, walkEnded: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders()
        let total = statedTotal(walker: walker, walkEnded: walkEnded)
        if let total { headers.set("PageProxy-Total", String(total)) }
        guard let window else { return headers }
        let links = WindowLinks(request: request, window: window)
        let next = nextWindow(walker: walker, walkEnded: walkEnded, total: total)
        if let link = links.value(hasMore: next != nil, next: next) { headers.set("Link", link) }
        return headers
    }

    /// Whether an NDJSON head, sent before the walk ended, leaves `rel="next"` out because the client's `_max_pages`
    /// may end the walk before the window's end: a `next` at the window's end would skip the items the cut left out
    /// (real18 F6: a stream cut at item 199 linked on at 250). The `next` the walk earned is then a trailer
    /// (`trailingNext`), to a client that takes them.
    func headLeavesOutNext() -> Bool {
        guard let window else { return false }
        return pageCapMayCut && handedOut < cappedLimit(window)
    }

    /// Whether a window's answer has handed out none of its items yet: every page so far lay before its first item. An
    /// NDJSON head waits then, as it can say whether more follow only from a total, and the walk may yet end at the
    /// page that holds the window's items (review24: a window at a list's end, walked again from the list's first page,
    /// sent its head after that page and linked on past the end where the JSON form did not).
    var awaitsWindowItems: Bool { window != nil && handedOut == 0 }

    /// The window's `<…>; rel="next"` once the walk is over, for the trailer of a head that left it out; nil for none.
    func trailingNext(walker: PageWalker) -> String? {
        guard let window, let next = nextWindow(walker: walker, walkEnded: true, total: statedTotal(walker: walker, walkEnded: true)) else {
            return nil
        }
        return WindowLinks(request: request, window: window).nextLink(at: next)
    }

    /// Where the window after this one starts, when the answer links on to it; nil for no `rel="next"`.
    private func nextWindow(walker: PageWalker, walkEnded: Bool, total: Int?) -> Int? {
        guard let window else { return nil }
        if !walkEnded && headLeavesOutNext() { return nil }
        let endedShort = walkEnded && (walker.endedShortOfTotal || firstPageDisproves(walker))
        // The next window starts after the last item this answer holds: the window's end, or, under an item cap, the
        // cap's end, and after a walk cut short by `_max_pages` the last item handed out (review17 B3: the link
        // pointed past items never delivered).
        var next = ItemWindow(offset: window.offset, limit: cappedLimit(window)).end
        let cutShort = windowCutShort(walker, walkEnded: walkEnded)
        if cutShort { next = window.offset + handedOut }
        // A window with no end (`_offset` alone, or a limit past the largest offset) runs to the list's end: only a cap
        // links on (real18 F5: an NDJSON head linked on to `_offset=9223372036854775807`).
        if next == Int.max { return nil }
        // Cut before the window's first item (`_max_pages` counts the pages the window skips): a `next` here would be
        // this very window again, asked for ever (review18 N1); the answer says it was truncated instead.
        // A window that ends on a full page at the stated end links on: the total may be lower than the truth, and the
        // walk had no room for the page that would tell (review22 M2: a scroll ended at 100 of 150; a next window
        // past the end is empty, one request); so does one whose walk held items past its end (a capped upstream's
        // page past a low total). An NDJSON head leaves before the last page: it links on when the pages the walk
        // steps by end full at the total.
        let mayGoOn = walkEnded ? walker.endedAtUncheckedStatedEnd || walker.wasTruncated : endsOnFullPage(at: next, walker: walker)
        // A walk that ended short of its stated total found the list's real end; a window it filled whose last page held
        // items past `next` (the item cap cut them: `wasTruncated`) is not at that end (retest17 W1: a capped upstream
        // stating 33 of 30, the window 18–26 said no next with 28–30 on its last page; a scroll stopped at 27).
        let heldItemsPast = walker.wasTruncated && handedOut == cappedLimit(window)
        // A window left short by a walk that ended on its own holds the list's end, whatever the total says (an offset
        // list that filters counts items it never shows; harness19 W1: `_offset=193&_limit=28` of 200 linked on at 221).
        let foundEnd = walkEnded && walker.endedAtListEnd && handedOut < cappedLimit(window)
        let hasMore = (endedShort && !heldItemsPast) || (cutShort && handedOut == 0) || foundEnd ? false
            : total.map(leftFromStart).map { next < $0 || (next == $0 && mayGoOn) }
                ?? (walkEnded ? walker.wasTruncated || walker.endedAtUncheckedStatedEnd : true)
        return hasMore ? next : nil
    }

    /// The total an answer states: the upstream's, unless the walk so far disproves it. `headers` and `_explain`
    /// (`ExplainAnswer`) state this one, so that they agree (loose12: `_explain` kept a total the pages outnumbered).
    func statedTotal(walker: PageWalker, walkEnded: Bool) -> Int? {
        // A walk that ended on an empty page its total promised (the list shrank) knows the stated total is wrong: a
        // merged answer says none, and its window links by what the walk found (review9).
        let endedShort = walkEnded && (walker.endedShortOfTotal || firstPageDisproves(walker))
        // Nor one the items the walk found outnumber (attack11 L2: the first page's own count is checked where the
        // total is read; this is the pages after it), counted from the walk's start (`leftFromStart`) or the window's
        // (a window that starts past the total finds nothing, which contradicts nothing; review12).
        let outnumbered = walkEnded && total.map { handedOut > max(0, leftFromStart($0) - (window?.offset ?? 0)) } ?? false
        // Nor, for a merged answer, one its items fall short of when the walk read every page the total numbered, each
        // but the last holding exactly the size they were numbered by: the last page was short, and the list ends there
        // (walker17's leftover: `Total: 100` beside 95 items; an offset route stepping by its `limit` numbers pages
        // that may be short for a filter, and keeps the total). Counted from where the walk started: the total counts
        // the items before it too (review26 M1: `?page=3` of 50 holds 30, and the true 50 was dropped).
        let fellShort = walkEnded && window == nil && walker.numberedPagesExactly && walker.hasHandedOutAll && !walker.wasTruncated
            && total.map { handedOut < leftFromStart($0) && itemCap.map { handedOut < $0 } ?? true } == true
        return endedShort || outnumbered || fellShort ? nil : total
    }

    /// Whether the walk stopped early at a cap (`_max_items`, `_max_pages`, the route's `maxItems`), not at a window's
    /// end: a window's only once the walk is over, short of the items it could hold (review18 N3).
    func wasTruncatedByCap(_ walker: PageWalker, walkEnded: Bool = true) -> Bool {
        guard window != nil else { return walker.wasTruncated }
        return windowCutShort(walker, walkEnded: walkEnded)
    }

    /// The items a window's answer may hold: its limit, or less under an item cap.
    private func cappedLimit(_ window: ItemWindow) -> Int {
        itemCap.map { min(window.limit, $0) } ?? window.limit
    }

    /// Whether a cap (`_max_pages`) ended a walk over before the window's answer held what it could; not when the list
    /// ended first, short of its stated total (the window's own page count cut pages numbered from a wrong total).
    private func windowCutShort(_ walker: PageWalker, walkEnded: Bool) -> Bool {
        guard let window else { return false }
        return walkEnded && walker.wasTruncated && !walker.endedShortOfTotal && handedOut < cappedLimit(window)
    }

    /// The items a stated total (the whole list's) leaves from the item a window's `_offset` counts from: the walk's
    /// start as the client or the route named it (`?page=3`, `?offset=20`), past the items before it; from the list's
    /// start after a jump, which numbers its first item from there (`firstItem`). fix31's leftover: a window from the
    /// client's `?page=3` compared its offsets with the whole list's total, and linked on to empty windows past the end.
    private func leftFromStart(_ total: Int) -> Int {
        max(0, total - (firstItem > 0 ? 0 : itemsBeforeWalk))
    }

    /// Whether a window's walk whose first page held no items disproves the total, which said items were there
    /// (attack16 L6: a window past the list's end said the false total and linked on to the next empty window).
    private func firstPageDisproves(_ walker: PageWalker) -> Bool {
        window != nil && !isFirst && walker.firstPageItems == 0 && total.map { leftFromStart($0) > firstItem } == true
    }

    /// Whether a window's walk, its head sent before its last page, will end on a full page at `end`: the pages from
    /// its first item step by what its first page held.
    private func endsOnFullPage(at end: Int, walker: PageWalker) -> Bool {
        let step = walker.firstPageItems
        return step > 0 && end > firstItem && (end - firstItem) % step == 0
    }
}
