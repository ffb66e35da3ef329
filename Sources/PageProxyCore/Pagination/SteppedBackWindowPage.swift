/// The window's own page, the second of a walk that started one page before it (`ItemWindow.FirstPageCheck.steppedBack`:
/// a `page-number` or `offset` route that names no total, or an offset jump past a stated total walked again from the
/// page before). On its own, a page at or past the list's end that an upstream answers with its last page again
/// (Django's `Paginator.get_page()`, the mock's `mock_past_end=last`) looks like the window's items (attack20 I: a
/// `200` with items 11–20 for `_offset=20`, and a `rel="next"` that repeated them for ever); beside the page before it,
/// it is that page again.
///
/// - The page before full, the window's page the same items again: the list's first page tells an upstream that does
///   not read the page number or offset (the same items there: a `502`, unless that page is the whole list) from the
///   last page repeated past the end (the window is past the end: `[]`).
/// - The page before short of its size with no total (the list's last page, or the upstream's cap): the page after it
///   (the window's, or for an offset the one at the short page's end) empty, a 404, or the short page again is the
///   list's end before the window (`[]`, one request more than the jump alone); other items there are the upstream's
///   cap, and the window is walked again by what it served (review20 H2: failing the short page at once walked every
///   page before the window, 999 of them, into a `502`). The short page's last few items again are *not* taken for its
///   end (fix22a did, for retest21 A, and review22 H1 showed why not): an offset asked past a short page asks from the
///   items it served, so under a filter the window's page lies inside the positions the page before covered and
///   honestly holds its tail; taken for the end, a window of a filtered list answered `[]`.
struct SteppedBackWindowPage {
    /// The page before's items, as they lie in its body (a slice of it, held until the window's page).
    private var before: ArraySlice<UInt8>?
    /// Whether the page before was short of its size, with no total: the window's page is asked all the same.
    private(set) var beforeWasShort = false

    /// Whether the page before is remembered and the window's page not read yet: nothing of the window is known, and
    /// an NDJSON answer sends no head yet (its walk may still be walked again: `cappedAfterShort`).
    var isArmed: Bool { before != nil }

    /// What the window's page showed.
    enum Reading: Equatable {
        /// The page before's items again, after a full page before: asked the list's first page next.
        case repeatedFull
        /// The page before's items again, after a short page before: the list ended there.
        case repeatedShort
        /// Other items after a short page before: the upstream's cap, not the list's end.
        case cappedAfterShort
    }

    /// Remembers `page`, the walk's first, one page before the window's; `short`: it is short of its size with no total.
    mutating func remember(_ page: Page, short: Bool) {
        before = page.itemCount > 0 ? PageItemsMark.itemsSpan(of: page) : nil
        beforeWasShort = short
    }

    /// Reads `page`, the window's own (the walk's second); nil when nothing was remembered, or it holds no item, or
    /// other items after a full page before (the window's items). The page before is forgotten.
    mutating func read(_ page: Page) -> Reading? {
        guard let remembered = before else { return nil }
        before = nil
        guard page.itemCount > 0 else { return nil }
        // Items that look constant (a series with no id) repeat while the list goes on: never taken for the page
        // before again (`PastEndRepeat`), so after a short page they are walked again, which cannot miss.
        let again = PageItemsMark(page)?.looksConstant == false && PageItemsMark.itemsSpan(of: page).elementsEqual(remembered)
        switch (again, beforeWasShort) {
        case (true, false): return .repeatedFull
        case (true, true): return .repeatedShort
        case (false, true): return .cappedAfterShort
        case (false, false): return nil
        }
    }
}
