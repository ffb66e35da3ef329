/// An upstream that answers any page past its list's end with its last page again (attack7 F3's habit; Django's
/// `get_page()`), in a walk PageProxy numbers itself with no total: under a size it cannot trust (a client's size the
/// upstream may cap) or one the last page fills (walk18), no page is short of the size that proves the end, none is
/// empty, and the walk ran to `maxPages` (review14 F13; NDJSON streamed the repeats first). The page after one the
/// scheme names (`PaginationStrategy.mayRepeatPastEnd`) that holds its items again is past the end: the walk ends
/// there, the repeat dropped.
///
/// Items that look constant (`PageItemsMark.looksConstant`: a series with no id, loose12) are not taken for a repeat:
/// such data repeats page after page while the list goes on, and the walk goes on as it did. Items of such a series
/// that repeat with the page size (weekdays under `per_page=7`) make pages equal byte for byte: nothing on the two
/// pages tells them from the repeat (attack14 M1's `periodic`); a page far past does (`PastEndClampCheck`).
///
/// Under the route's own size every page after the first is compared too (walk18), so a walk through the cache with
/// its bodies left in their files (`cache.sendFromFiles`) would read each one: two pages the cache holds are compared
/// by their bodies' checksums first, and a body is read only when they are equal.
struct PastEndRepeat {
    /// The items of the page before, when the scheme named it: where they lie (`PageItemsMark.Place`: their mark is worked
    /// out only when a comparison needs it), that page's body and their bytes in it (a slice, held until the next page)
    /// when its body was in memory, and its body's checksum when the cache holds it.
    private var before: (items: PageItemsMark.Place?, body: [UInt8], span: ArraySlice<UInt8>, checksum: UInt64?)?

    /// Whether `isRepeat` reads the bytes of `page`, shown next with `keep`: it does when a page before is remembered
    /// (compared with it), or when `page` is to be (the page after it is compared with it); a page the cache left in
    /// its file is compared by checksum, and read only when it equals the page before's.
    func readsBytes(of page: Page, keep: Bool) -> Bool {
        guard before != nil || keep else { return false }
        guard page.bodyInFile != nil, let checksum = page.storedChecksum else { return true }
        guard let before else { return false }
        return before.checksum.map { $0 == checksum } ?? true
    }

    /// Whether `page` is the page before again, past the end; `page` is remembered when `keep` is true.
    ///
    /// Equal marks say only that the count, the span and the first and last items agree; the whole items are compared
    /// then, and only then (attack14 M1: pages sharing a header and footer row lost every page after the first). Equal
    /// bodies (by checksum) hold equal items.
    ///
    /// The items' marks are worked out last, only for pages whose bodies or item bytes are equal (issue 13: two XXH64 runs a
    /// page on every page of a walk numbered with no total, for pages that differ in their first bytes); the answer is
    /// the same conjunction in a cheaper order.
    mutating func isRepeat(_ page: Page, keep: Bool) -> Bool {
        guard keep || before != nil else { return false }
        let items = PageItemsMark.Place(page)
        let span = items == nil ? [] : PageItemsMark.itemsSpan(of: page)
        let earlier = before
        before = keep ? (items, page.body, span, page.storedChecksum) : nil
        guard let earlier, let items else { return false }
        if let checksum = page.storedChecksum, checksum == earlier.checksum { return !PageItemsMark(items, in: page.body[...]).looksConstant }
        guard let itemsBefore = earlier.items, items.count == itemsBefore.count, span.elementsEqual(earlier.span) else { return false }
        let mark = PageItemsMark(items, in: page.body[...])
        return !mark.looksConstant && mark == PageItemsMark(itemsBefore, in: earlier.body[...])
    }
}
