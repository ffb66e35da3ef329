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
/// - The page before the list's first page (an offset window on the list's second page; `ItemWindow.Plan`), the window's
///   page its items again: not read here, but by the checks a walk from the list's start makes of its second page, as
///   the merged walk does: `IgnoredPageNumber` after a full page (the first page and a page far past are that page again
///   under both habits: a `502`), `ShortFirstPageRepeat` after a short one (the first page one position on). Review23
///   M1: read here, an upstream that ignores the offset answered a window on its second page `200 []`, where the merged
///   answer is a `502`.
/// - The page before short of its size with no total (the list's last page, or the upstream's cap): the page after it
///   (the window's, or for an offset the one at the short page's end) empty, a 404, or the short page again is the
///   list's end before the window (`[]`, one request more than the jump alone); other items there are the upstream's
///   cap, and the window is walked again by what it served (review20 H2: failing the short page at once walked every
///   page before the window, 999 of them, into a `502`).
/// - The page before's last few items again (fewer of them) are either: an offset asked past a page asks from the
///   items it served, as many as it served, and an upstream answering past its end with its last page cuts that page by
///   the size asked (retest21 A: `[8,9,10]` at offset 7, `[10]` at offset 10 under `limit=3`; fold24: a window walked
///   again by a cap of 4, `[7…10]` full at offset 6, `[9,10]` at offset 10); or, under a filter, the window's page lies
///   inside the positions a short page before covered and honestly holds its tail (review22 H1: taken for the end, as
///   fix22a did, a window of a filtered list answered `[]`). The page at the first position the page before did not
///   ask, with its size, tells them apart (review22's fix, as `PastEndClampCheck` does): empty, a 404, the page before
///   or its tail again is the end (`[]`); new items are a filter or a cap, walked again as after other items. One
///   request more, only when a tail came again.
struct SteppedBackWindowPage {
    /// The page before's items, as they lie in its body (a slice of it, held until the window's page, or the tail
    /// check's page after it).
    private var before: ArraySlice<UInt8>?
    /// The page before's items, each hashed, when they are unique: what a window's page holding its last few again is
    /// told by.
    private var beforeItems: [UInt64] = []
    /// The index (as in the walker's `urls`) of the page asked after a tail again (`Reading.tailAgain`), until read.
    private var tailCheck: Int?
    /// Whether the page before was short of its size, with no total: the window's page is asked all the same.
    private(set) var beforeWasShort = false
    /// Whether the page before is the list's first page: its items again on the window's page are not read here.
    private var beforeIsListFirst = false
    /// The page before's count, when it was full in a walk again by a served size (`ItemWindow.walkingAgain`): a window's
    /// page short of it fails the walk (`shortAfterFull`).
    private var fullAgainCount: Int?

    /// Whether the page before is remembered and the window's page (or the tail check's) not read yet: nothing of the
    /// window is known, and an NDJSON answer sends no head yet (its walk may still be walked again: `cappedAfterShort`).
    var isArmed: Bool { before != nil }

    /// What the window's page showed.
    enum Reading: Equatable {
        /// The page before's items again, after a full page before: asked the list's first page next.
        case repeatedFull
        /// The page before's items again, after a short page before: the list ended there.
        case repeatedShort
        /// Other items after a short page before: the upstream's cap, not the list's end.
        case cappedAfterShort
        /// The page before's last items again, fewer of them (or, after a short page before, after other items: an upstream
        /// that ignores the size answers past its end with its whole list, fold24b's regression 4; after a full one such a
        /// longer page is the upstream's own size, walked from the first page as before): the end, or a filter; the page at the first
        /// position the page before did not ask tells (`askedTailCheck`, `readTailCheck`). The page before is kept until then.
        case tailAgain
        /// Fewer items than a full page before, neither its items again nor its tail, in a walk again by a served size
        /// (`ItemWindow.walkingAgain` steps back one served page): the list's end, or a filter that hid items under the
        /// cap; the walk fails, as its first page short of the served size did when the walk again started at the window's
        /// offset (fold24b's regression 2: 6 of 10 items under a cap of 7, one item in 15 hidden), and is walked again
        /// unchecked.
        case shortAfterFull
    }

    /// Remembers `page`, the walk's first, one page before the window's; `short`: it is short of its size with no total;
    /// `listFirst`: it is the list's first page (a window on the list's second); `walkedAgain`: the walk is a window's
    /// walked again by a served size.
    mutating func remember(_ page: Page, short: Bool, listFirst: Bool, walkedAgain: Bool = false) {
        before = page.itemCount > 0 ? PageItemsMark.itemsSpan(of: page) : nil
        (beforeWasShort, beforeIsListFirst) = (short, listFirst)
        fullAgainCount = walkedAgain && !short ? page.itemCount : nil
        let hashes = before != nil && page.bodyInFile == nil ? ItemHashes(page) : nil
        beforeItems = hashes.flatMap { $0.areUnique ? $0.values : nil } ?? []
    }

    /// Reads `page`, the window's own (the walk's second); nil when nothing was remembered, or it holds no item, or
    /// other items after a full page before (the window's items), or the list's first page again (the walk's checks of a
    /// second page read it). The page before is forgotten, but for a tail again
    /// (`tailAgain`): then the walker asks the tail check (`askedTailCheck`) or, with no room for it, `forget`s.
    mutating func read(_ page: Page) -> Reading? {
        guard let remembered = before, tailCheck == nil else { return nil }
        guard page.itemCount > 0 else {
            forget()
            return nil
        }
        // Items that look constant (a series with no id) repeat while the list goes on: never taken for the page
        // before again (`PastEndRepeat`), so after a short page they are walked again, which cannot miss.
        let comparable = PageItemsMark(page)?.looksConstant == false
        let again = comparable && PageItemsMark.itemsSpan(of: page).elementsEqual(remembered)
        if !again && comparable
            && (Self.holdsTail(of: beforeItems, page)
                || (beforeWasShort && page.itemCount > beforeItems.count && Self.endsWithTail(of: beforeItems, page)))
        {
            return .tailAgain
        }
        let fullAgainCount = fullAgainCount
        forget()
        switch (again, beforeWasShort) {
        case (true, _) where beforeIsListFirst: return nil
        case (true, false): return .repeatedFull
        case (true, true): return .repeatedShort
        case (false, true): return .cappedAfterShort
        case (false, false): return fullAgainCount.map { page.itemCount < $0 } == true ? .shortAfterFull : nil
        }
    }

    /// The page before and its tail check are forgotten: nothing of the window is left to compare.
    mutating func forget() {
        (before, beforeItems, tailCheck, fullAgainCount) = (nil, [], nil, nil)
    }

    /// The tail check's page is asked at `index`, after `tailAgain`.
    mutating func askedTailCheck(at index: Int) { tailCheck = index }

    /// Whether the page at `index` is the tail check's (its bytes are read: a body the cache left in its file first).
    func isTailCheck(_ index: Int) -> Bool { tailCheck == index }

    /// Reads `page`, the tail check's: whether the list ended at the page before (no item, or the page before again, or
    /// its last items last); false: new items, a filter or the upstream's cap (`cappedAfterShort`). Everything is forgotten.
    mutating func readTailCheck(_ page: Page) -> Bool {
        defer { forget() }
        guard page.itemCount > 0 else { return true }
        guard let before, PageItemsMark(page)?.looksConstant == false else { return false }
        return PageItemsMark.itemsSpan(of: page).elementsEqual(before) || Self.endsWithTail(of: beforeItems, page)
    }

    /// Whether `page`'s last items are the last of `items` (hashed, unique), as many as both hold: the tail check's page
    /// lies past every position the page before asked, and never holds its items honestly; an upstream answering past its
    /// end with its last page as its cap cuts it holds them after others (fold24b: `[17…20]` past `[18,19,20]` under a
    /// cap of 4).
    private static func endsWithTail(of items: [UInt64], _ page: Page) -> Bool {
        guard !items.isEmpty, page.bodyInFile == nil else { return false }
        let values = ItemHashes(page).values
        let common = min(values.count, items.count)
        return values.suffix(common).elementsEqual(items.suffix(common))
    }

    /// Whether `page`'s items are the last of `items` (hashed, unique), fewer of them: never an honest page after them,
    /// but for a filter's page inside the positions they covered.
    private static func holdsTail(of items: [UInt64], _ page: Page) -> Bool {
        guard page.itemCount < items.count, page.bodyInFile == nil else { return false }
        return ItemHashes(page).values.elementsEqual(items.suffix(page.itemCount))
    }
}
