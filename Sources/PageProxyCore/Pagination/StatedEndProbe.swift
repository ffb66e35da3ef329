/// The pages a walk asks past the stated end of its list (review17 B10, review22 S1/S2): a total may be lower than the
/// truth (PostgREST's estimated counts), so a full page at the stated end is followed by one more.
///
/// Two kinds of page are past a stated end, by page index (as in the walker's `urls`):
/// - one the walk was *linked* to past a total's last page (a scheme whose every page states its own end): a 404, 410,
///   416 or one of the scheme's end statuses there agrees with the total, and ends the walk quietly;
/// - one the walk *asked* past a full last page: the first such page is the probe, asked once a walk, counting
///   against no cap, whose any failure ends the walk at the total (retest15 N4); a page there that holds the page
///   before's items again is that page repeated past the end (Django's `get_page()`; review21 F1). The pages after a
///   probe that held items are ordinary pages (review22 H2), asked on while each is full.
struct StatedEndProbe {
    /// The latest page past a stated end, linked or asked.
    private var pastEnd: Int?
    /// The probe: the first page asked past a full stated end.
    private var probe: Int?
    /// The items of the full page before the latest page asked (a slice of its body).
    private var before: ArraySlice<UInt8>?
    /// The same items one by one (slices of that body), to find its last few again (`isTailAgain`).
    private var beforeItems: [ArraySlice<UInt8>] = []

    /// Whether the walk has asked its probe.
    var hasAsked: Bool { probe != nil }

    /// The page at `index` was linked past a total's last page.
    mutating func linked(at index: Int) {
        pastEnd = index
    }

    /// The page at `index` is asked past `full`, a full page at the stated end or past it; the first is the probe.
    /// `full`'s body must be in memory (its items are compared with the page asked).
    mutating func asked(at index: Int, after full: Page) {
        if probe == nil { probe = index }
        pastEnd = index
        before = PageItemsMark.itemsSpan(of: full)
        beforeItems = Self.itemBytes(of: full) ?? []
    }

    /// Whether the page at `index` is the probe.
    func isProbe(_ index: Int) -> Bool { probe == index }

    /// Whether the guards read the bytes of the page at `index` (a body the cache left in its file is read first).
    func readsBytes(ofPageAt index: Int) -> Bool { pastEnd == index }

    /// Whether `page`, at `index`, holds the items of the full page asked past again: the list ends before it.
    func isRepeat(_ page: Page, at index: Int) -> Bool {
        guard pastEnd == index, let before, !before.isEmpty else { return false }
        return PageItemsMark.itemsSpan(of: page).elementsEqual(before) || isTailAgain(page)
    }

    /// Whether `page` and the full page asked past end with the same items, one holding only the other's last items
    /// again: an upstream that answers past its end with its last page *as it cuts its pages* (Django's `get_page()`
    /// behind an offset, under a cap of 3: `[24]` past 25 items, after `[22,23,24]`; attack20 A/B/E: taken for new items,
    /// a window held item 36 twice, or an item past a true total), or, after a window's short page at the stated total
    /// (`fullAtStatedEnd`), that clamped last page holding it (retest20: `[37…41]` after `[41]`, item 41 twice). An
    /// honest page there starts after the page before's last item — unless the list's items repeat on their own
    /// (periodic data with no id, review20 H1: real items past a low total were dropped), so only pages whose items are
    /// each unique can be repeated this way. (A page of k unique items, after one of fewer, that ends with them while the
    /// list's items cycle every k or more is still taken for a repeat: periodic data with no id, a low total, a cap, and a
    /// window at the end at once.)
    private func isTailAgain(_ page: Page) -> Bool {
        guard page.itemCount > 0, page.itemCount != beforeItems.count, !beforeItems.isEmpty,
            Set(beforeItems).count == beforeItems.count, let items = Self.itemBytes(of: page), Set(items).count == items.count
        else { return false }
        let shared = min(items.count, beforeItems.count)
        return items.suffix(shared).elementsEqual(beforeItems.suffix(shared)) { $0.elementsEqual($1) }
    }

    /// Each item of `page` as it lies in its body; nil for a body not in memory.
    private static func itemBytes(of page: Page) -> [ArraySlice<UInt8>]? {
        var bytes: [ArraySlice<UInt8>] = []
        bytes.reserveCapacity(page.items.count)
        for item in page.items {
            guard item.range.upperBound <= page.body.count else { return nil }
            bytes.append(page.body[item.range])
        }
        return bytes
    }

    /// Whether `status`, answered for the page at `index`, ends the walk quietly: past a stated end, a 404, 410 or 416
    /// (PostgREST), or one of the scheme's `endStatuses`.
    func endsQuietly(status: Int, at index: Int, endStatuses: Set<Int>) -> Bool {
        pastEnd == index && (status == 404 || status == 410 || status == 416 || endStatuses.contains(status))
    }

    /// Whether `failure` of the page at `index` ends the walk quietly, at its stated total: the probe asks nothing of
    /// the total, so whatever it fails with upstream, the list ends where it did before the probe was asked
    /// (retest15 N4: a 400, 422 or 5xx there failed a whole list).
    func endsQuietly(failure: PaginationError, at index: Int) -> Bool {
        isProbe(index) && failure.isUpstreamFailure
    }
}
