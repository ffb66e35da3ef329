/// An upstream that answers any page past its list's end with its last page again (attack7 F3's habit), in a walk
/// PageProxy numbers itself under a page size it cannot trust (a client's size the upstream may cap; no total): no
/// page of it is short of the size that proves the end, none is empty, and the walk ran to `maxPages` (review14 F13;
/// NDJSON streamed the repeats first). The page after one the scheme names (`PaginationStrategy.mayRepeatPastEnd`)
/// that holds its items again is past the end: the walk ends there, the repeat dropped.
///
/// Items that look constant (`PageItemsMark.looksConstant`: a series with no id, loose12) are not taken for a repeat:
/// such data repeats page after page while the list goes on, and the walk goes on as it did. Items of such a series
/// that repeat with the page size (weekdays under `per_page=7`) make pages equal byte for byte: nothing on the wire
/// tells them from the repeat, and they are taken for it (attack14 M1's `periodic`; a route's own `pageSize` is
/// trusted and never compared).
struct PastEndRepeat {
    /// The items of the page before, when the scheme named it: their mark, and their bytes (a slice of that page's
    /// body, held until the next page) for when the marks are equal.
    private var before: (mark: PageItemsMark, span: ArraySlice<UInt8>)?

    /// Whether `isRepeat` reads the bytes of `page`, shown next with `keep`: it does when a page before is remembered
    /// (compared with it), or when `page` is to be (the page after it is compared with it).
    func readsBytes(of page: Page, keep: Bool) -> Bool { before != nil || keep }

    /// Whether `page` is the page before again, past the end; `page` is remembered when `keep` is true.
    ///
    /// Equal marks say only that the count, the span and the first and last items agree; the whole items are compared
    /// then, and only then (attack14 M1: pages sharing a header and footer row lost every page after the first).
    mutating func isRepeat(_ page: Page, keep: Bool) -> Bool {
        guard keep || before != nil else { return false }
        let mark = PageItemsMark(page)
        let earlier = before
        before = keep ? mark.map { ($0, PageItemsMark.itemsSpan(of: page)) } : nil
        guard let mark, let earlier, mark == earlier.mark, !mark.looksConstant else { return false }
        return PageItemsMark.itemsSpan(of: page).elementsEqual(earlier.span)
    }
}
