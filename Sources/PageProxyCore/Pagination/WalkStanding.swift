/// Where a walk stands against the client's window (`_offset`/`_limit`, `_max_pages`) and the route's `maxPages`: the cap
/// that cuts it, the pages each cap counts, the page asked past `maxPages`, and the page before a window's page. The
/// walker holds one of these and asks it (review21 LOW 3, closing-42: each window fix had added a loose field to the
/// walker, `steppedBack`, `windowPagesLifted`, `cutAtMaxPages`, `pageAskedPastMaxPages`, `smallPages` and the counts
/// read from them).
///
/// The rules, each with its why:
/// - The client's cap is `Options.pageLimit` until a window walked from where the walk starts shows the list filtered:
///   its page count (pages of a size, full of its items) then cuts it short, so only `_max_pages` and `maxPages` cut it,
///   counted as `maxPages` counts (`liftWindowPages`; filtwin21: `[12,14]` for `[12,14,16,18,20]`; review21 M4: a window
///   of a list's 33 items failed `too_many_pages` where the merged answer held them all).
/// - Such a lifted window's pages numbered ahead are cut at `maxPages`, not refused: its items may come first; the walk
///   fails `too_many_pages` at the last of them only if they did not (`cutAtPageCap`, `isCutAtMaxPages`; filtwin21: a
///   window of 5 items at the start of a list numbered to 100,000 was refused at once).
/// - `maxPages` counts the list's pages at its `limit`: not the pages a filtered offset walk asked again while stepping,
///   nor what its pages of fewer positions do not fill (`charged`; review20 M5, review21 M3, fix22b), at most `maxPages`
///   of them, so a walk never asks more than twice `maxPages` pages.
/// - One page past `maxPages`, known only from the page before, is asked: a list of exactly `maxPages` full pages shows
///   its end only there; an item on it fails the walk (`charge`, `failsPastMaxPages`; contract22 F2).
/// - A walk that started one page before the window's reads the window's page beside it (`steppedBack`,
///   `SteppedBackWindowPage`; attack20 I, review20 H2); until then it may be walked again (`isAtPageBeforeWindow`).
struct WalkStanding {
    /// How the client's window's page count cuts the walk; each state holds only after the one before it.
    enum WindowCount: Equatable {
        /// `Options.pageLimit` cuts it (the window's page count, or `_max_pages`).
        case counted
        /// The walk showed the list filtered, in a window walked from where the walk starts: `pageLimitOnceFiltered`
        /// and `maxPages` cut it, counting the pages `maxPages` counts.
        case lifted
        /// Lifted, and the pages numbered ahead were cut at the route's `maxPages`.
        case cutAtMaxPages
    }

    /// The pages a walk knows, as the caps count them.
    struct Known {
        /// Every page known: built, and known ahead but not built yet.
        var all: Int
        /// The pages of the `limit` a filtered offset walk asked again while stepping (`FilteredWindowStep.pagesAskedAgain`).
        var askedAgain: Int
    }

    /// The route's runaway guard (`Options.maxPages`).
    let maxPages: Int
    private let pageLimit: Int?
    private let pageLimitOnceFiltered: Int?
    /// Whether the walk is a window's from the first item it hands out (`Options.windowFromWalkStart`): a filter lifts
    /// its page count.
    private let liftsOnFilter: Bool
    /// Whether the walk is a window's that started past the list's first item (a jump, checked or not): its offsets
    /// count items a filter may hide from the merged answer.
    let isJumpedWindow: Bool
    private(set) var windowCount = WindowCount.counted
    /// The pages of a walk that showed a filter asking fewer positions than the list's `limit` (`SmallPageCharge`).
    private var smallPages = SmallPageCharge()
    /// The index of the page asked past `maxPages` to see whether the list ended there.
    private var pageAskedPastMaxPages: Int?
    /// A window's page after the page before it, where the walk started (`SteppedBackWindowPage`).
    var steppedBack = SteppedBackWindowPage()

    init(_ options: PageWalker.Options) {
        maxPages = options.maxPages
        pageLimit = options.pageLimit
        pageLimitOnceFiltered = options.pageLimitOnceFiltered
        liftsOnFilter = options.windowFromWalkStart
        isJumpedWindow = options.windowFirstItem > 0 || (options.windowCheck?.firstItem ?? 0) > 0
    }

    /// How many more pages fit under `limit` when `used` are taken; never negative, never overflowing.
    static func room(below limit: Int, used: Int) -> Int {
        limit > used ? limit - used : 0
    }

    /// The client's page cap the walk is cut at: `pageLimit`, or once lifted, `pageLimitOnceFiltered` and `maxPages`.
    var pageCap: Int? { windowCount == .counted ? pageLimit : min(pageLimitOnceFiltered ?? Int.max, maxPages) }

    /// The pages known that `maxPages` counts: all but those asked again while stepping and those its pages of fewer
    /// positions do not fill, at most `maxPages` of them.
    func charged(_ known: Known) -> Int {
        known.all - min(maxPages, known.askedAgain + smallPages.uncharged)
    }

    /// The pages known that `pageCap` counts: once lifted, those `maxPages` counts, as a merged walk of the list does.
    private func cappedCount(_ known: Known) -> Int {
        windowCount == .counted ? known.all : charged(known)
    }

    /// Whether one more page fits under `maxPages` (a check page, which counts against it alone).
    func hasRoomUnderMaxPages(_ known: Known) -> Bool {
        Self.room(below: maxPages, used: charged(known)) >= 1
    }

    /// Whether a check page past a full stated end fits under `maxPages` and the client's cap: a list of exactly that
    /// many full pages is complete, not cut (retest15 N6).
    func hasRoomForCheckPage(_ known: Known) -> Bool {
        hasRoomUnderMaxPages(known) && pageCap.map { Self.room(below: $0, used: cappedCount(known)) >= 1 } ?? true
    }

    /// Whether the walk is a window's at the page before the window's, whose page it has not read yet: it may still
    /// fail with `missedWindowPageSize`, and be walked again.
    var isAtPageBeforeWindow: Bool { steppedBack.isArmed }

    /// Whether a lifted window's pages were cut at `maxPages`: the walk fails `too_many_pages` at the last of them if
    /// the window's items did not come first.
    var isCutAtMaxPages: Bool { windowCount == .cutAtMaxPages }

    /// The walk showed the list filtered: a window's page count from where the walk starts no longer cuts it.
    mutating func liftWindowPages() {
        if liftsOnFilter, windowCount == .counted { windowCount = .lifted }
    }

    /// How many of `count` pages the client's cap keeps, or nil when it cuts none of them (a check page is never cut).
    mutating func cutAtPageCap(_ count: Int, known: Known) -> Int? {
        guard let limit = pageCap else { return nil }
        let room = Self.room(below: limit, used: cappedCount(known))
        guard count > room else { return nil }
        if windowCount == .lifted, limit >= maxPages { windowCount = .cutAtMaxPages }
        return room
    }

    /// What `kept` pages of `step` positions each add to the pages `maxPages` counts under the list's `limit`, in a walk
    /// that showed a filter (`SmallPageCharge.charge`); nil when each counts one.
    func smallPageCharge(adding kept: Int, step: Int, limit: Int) -> Int? {
        smallPages.charge(adding: kept, step: step, limit: limit)
    }

    /// Counts `kept` pages (`small`: of fewer positions than the list's `limit`, charged as `smallPageCharge` said)
    /// against `maxPages`. Past it, the walk fails `too_many_pages`, but for one page known only from the page before,
    /// at `pastMaxPagesIndex` (nil for numbered pages or a check page), asked once a walk.
    mutating func charge(
        _ kept: Int, small: (charge: Int, step: Int, limit: Int)?, known: Known, pastMaxPagesIndex: Int?
    ) throws(PaginationError) {
        if (small?.charge ?? kept) > Self.room(below: maxPages, used: charged(known)) {
            guard let index = pastMaxPagesIndex, pageAskedPastMaxPages == nil else { throw .tooManyPages(limit: maxPages) }
            pageAskedPastMaxPages = index
        }
        if let small { smallPages.add(kept, step: small.step, limit: small.limit) }
    }

    /// Whether the page at `index`, holding `itemCount` items, was asked past `maxPages` and holds an item: the list
    /// is longer than `maxPages` pages.
    func failsPastMaxPages(itemCount: Int, at index: Int) -> Bool {
        itemCount > 0 && pageAskedPastMaxPages == index
    }
}
