/// The pages of an offset walk, compared each with the one before (review26 L1; retest19 F1: a full first page too).
///
/// A walk after a short first page asks its second page right after the first's items, with the first's served count
/// as its `limit`, and steps by that count (`OffsetStrategy.next`); one after a full first page steps by the limit:
/// each page's window then starts where the one before ended, so no page holds an item of the page before (the second
/// none but what it holds again of a filtered first page). One that does was cut wider than the `limit` asked: the
/// upstream ignores `limit` (it serves its own size, reading only the offset) or reads it no lower than a size of its
/// own. Where it also filters its pages after cutting them, no page need hold more than asked, and the walk handed out
/// the overlap's items twice under a `200` (mock: `mock_ignores=limit&mock_hide_every=4`, 4 of 27 items twice). Such a
/// page fails the walk instead. The second page is compared without the filtered first page's items it holds by design
/// (`FirstPageOverlap`; retest19 F1: more than those, the first page's last 3 of 9 under a limit of 10, went out twice);
/// not a page at the offset of the one before (the second asked again with the first's limit), nor items not each
/// unique (a series with no id may repeat across a page boundary) or a body left in its file.
///
/// One shared item is no overlap: a list sorted by a value with no id (scores `…, 8, 7, 7, 6, …`) holds equal
/// neighbours, split across a page boundary now and then, and that failed a whole list with a `502` (review27 R3). An
/// upstream whose own size is one over the step (its first page hid one item, and it ignores `limit`) overlaps by one
/// item a page, and is not seen here: such a walk hands that item out twice (README).
struct SteppedPageOverlap {
    /// XXH64 of each item of the page before, in order, and its offset; nil when it is not compared.
    private var before: (hashes: [UInt64], offset: Int?)?

    /// Checks `page`, the walk's page at 0-based `index` as the walk keeps it (the page as it arrived, or without its
    /// first items: the second page holds a filtered first page's last items again, dropped from it), against the one
    /// before as it arrived, then remembers this page as it arrived (the third may reach back into those items when the
    /// upstream's size is over twice the step). `arrived` are its items' hashes as it arrived (nil: its body is in its
    /// file); `offset` is the offset its URL asks.
    ///
    /// `dropsTailAgain`: true is returned, not a failure, when `page`, as kept, is the page before's last items and nothing
    /// else: an upstream that answers past its end with its last page, cut on its own grid, where the walk stepped off
    /// that grid (a window walked again from one served page before its offset, `ItemWindow.walkingAgain`: `_offset=42`
    /// of 50 items under a cap of 4 stepped 38, 42, 46, and offset 50 held `[49,50]` after `[47…50]`; `_offset=46` stepped
    /// 42, 46 and was a `502` on the start code too; fix25). Its items
    /// were all handed out with the page before: the caller drops them. Other walks fail there, as before.
    @discardableResult
    mutating func check(
        _ page: Page, arrived: ItemHashes?, index: Int, offset: Int?, dropsTailAgain: Bool = false
    ) throws(PaginationError) -> Bool {
        guard let arrived else {
            before = nil
            return false
        }
        // The page as the walk keeps it: the items it arrived with, less the first ones dropped.
        let hashes = arrived.values.suffix(page.items.count)
        defer { before = !arrived.values.isEmpty && arrived.areUnique ? (arrived.values, offset) : nil }
        guard index >= 1, let before, before.offset != offset || offset == nil, let first = hashes.first,
            let start = before.hashes.firstIndex(of: first)
        else { return false }
        // An overlap: the page before's items from this page's first on, to its end, lead this page (an item equal to
        // one inside the page before, its followers not alike, is no overlap: a list may hold two equal items).
        let shared = min(before.hashes.count - start, hashes.count)
        guard shared >= 2, before.hashes[start..<start + shared].elementsEqual(hashes.prefix(shared)) else { return false }
        if dropsTailAgain, shared == hashes.count, start + shared == before.hashes.count { return true }
        throw .cannotContinue(
            page: page.number,
            reason: "it starts with items of the page before again: the upstream serves more a page than the limit asked "
                + "(it ignores the limit, or reads it no lower than a size of its own), so pages stepped by the items it served "
                + "would repeat items")
    }
}
