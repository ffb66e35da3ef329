/// An upstream that answers any page past its list's end with its last page again (attack7 F3's habit), in a walk
/// PageProxy numbers itself under a page size it cannot trust (a client's size the upstream may cap; no total): no
/// page of it is short of the size that proves the end, none is empty, and the walk ran to `maxPages` (review14 F13;
/// NDJSON streamed the repeats first). The page after one the scheme names (`PaginationStrategy.mayRepeatPastEnd`)
/// that holds its items again is past the end: the walk ends there, the repeat dropped.
///
/// Items that look constant (`PageItemsMark.looksConstant`: a series with no id, loose12) are not taken for a repeat:
/// such data repeats page after page while the list goes on, and the walk goes on as it did.
struct PastEndRepeat {
    /// The items of the page before, when the scheme named it.
    private var before: PageItemsMark?

    /// Whether `isRepeat` will look at the page it is shown next, whatever it is (a page before is remembered).
    var remembers: Bool { before != nil }

    /// Whether `page` is the page before again, past the end; `page` is remembered when `keep` is true.
    mutating func isRepeat(_ page: Page, keep: Bool) -> Bool {
        guard keep || before != nil else { return false }
        let mark = PageItemsMark(page)
        defer { before = keep ? mark : nil }
        guard let mark, mark == before else { return false }
        return !mark.looksConstant
    }
}
