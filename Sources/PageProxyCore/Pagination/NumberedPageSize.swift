/// How many items each page a walk numbered ahead holds while the list is the one its numbering read (attack16 M3).
///
/// Pages PageProxy numbers from a total are cut by one size: page n of a `page-number` walk holds the items after
/// n − 1 pages of the size the page that numbered them held, an offset steps by its step. A page among them that holds
/// another count was cut by another size: an upstream whose page-size cap changed while the cache held pages of the
/// old size, or one that serves pages of two sizes. Stitched, its items come twice or never, under a `200` the cache
/// keeps. Such a page fails the walk (`PaginationError.pageSizeChanged`); a server walks once more, revalidating every
/// page, when one came from its cache, as it does for a stated end that moved (`StatedEndCheck`).
package struct NumberedPageSize: Sendable, Equatable {
    /// The items of every numbered page but the last, which holds at most as many.
    let items: Int
    /// Whether every page but the last holds exactly `items`; false: at most (an offset route stepping by its own
    /// `limit`, where an upstream that filters a page after cutting it serves fewer, README "Page sizes").
    let exact: Bool
}

/// The guards of a page the walk numbered ahead: the scheme's own rules for such a page
/// (`PaginationStrategy.checkNumbered`: an offset page longer than its limit), then the size the walk numbered its
/// pages by (`NumberedPageSize`) against the page's items. Both are here so that a numbered page passes them in one
/// place (review22 S1).
struct NumberedPageSizeCheck {
    /// The size, and the index past the last page numbered by it; nil until the scheme numbers pages ahead.
    private var numbered: (size: NumberedPageSize, end: Int)?

    /// Pages from index `first`, `count` of them, are numbered by `size` (nil: the scheme checks none).
    mutating func numbered(_ size: NumberedPageSize?, from first: Int, count: Int) {
        let (end, overflow) = first.addingReportingOverflow(count)
        numbered = size.map { ($0, overflow ? Int.max : end) }
    }

    /// A page before the last numbered that held fewer items: the list's real end under a total that was too high
    /// (README: the walk ends short of it with a 200; review23 F1: it was a 502), or a page of another size, told
    /// apart by the pages after it: one holding items fails the walk.
    private var short: (page: Int, held: Int)?

    /// Whether a page before the last numbered held fewer items than the size (and no page after it held any, or the
    /// walk failed): the list ends there, short of the total it was numbered from.
    var sawShortPage: Bool { short != nil }

    /// Whether the pages were numbered by a size every one but the last holds exactly (`NumberedPageSize.exact`).
    var numbersExactly: Bool { numbered?.size.exact == true }

    /// Checks `page`, at index `index`, against `strategy`'s rules for a numbered page, then against the size; an empty
    /// page is the end the walk finds on its own.
    mutating func check(_ page: Page, index: Int, strategy: any PaginationStrategy) throws(PaginationError) {
        try strategy.checkNumbered(page)
        guard let (size, end) = numbered, page.itemCount > 0 else { return }
        if let short { throw .pageSizeChanged(page: short.page, held: short.held, numbered: size.items) }
        guard page.itemCount != size.items else { return }
        if page.itemCount > size.items { throw .pageSizeChanged(page: page.number, held: page.itemCount, numbered: size.items) }
        if index < end - 1, size.exact { short = (page.number, page.itemCount) }
    }
}
