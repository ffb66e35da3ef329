/// The page after a short page of an offset list that showed a filter, compared with it (review27 R4).
///
/// Once the walk's second page showed the list filtered (the first page's last items again), a short page is no end
/// with no total: the walk asks the page after it, and only an empty page ends the list (filter19). An upstream that
/// answers past its end with its last page (Django's `get_page()` behind an offset; mock `mock_past_end=last`) serves
/// there the list's tail again, cut by its own page size: neither empty nor the page before byte for byte
/// (`PastEndRepeat`), so its items were handed out twice under a `200` (ids 25–30 twice of 23).
///
/// So the short page's items are remembered, and the page after it is compared with them. Holding some of them and
/// ending with one of them, it is the list's tail again: the list ended at the short page, and this page is dropped
/// (the answer is whole: every item up to the list's last was handed out). Holding some of them but ending with an
/// item not among them, it is no tail: items were added at the list's head while it was walked (pushing the short
/// page's last items into this one), or the upstream does not step by the offset asked: the walk fails rather than
/// hand items out twice or end short. A page whose tail holds an item the short page hid (an upstream that does not
/// filter its past-end answer) fails so too. Items not each unique (a series with no id) are not compared.
struct PastShortPageRepeat {
    /// XXH64 of each item of the short page before, as it arrived; nil when the page before was not remembered.
    private var short: Set<UInt64>?

    /// Whether the next page's bytes are read: a short page is remembered.
    var isArmed: Bool { short != nil }

    /// Remembers a page short of the size its URL asks on a list that showed a filter, by its items' `hashes` as it
    /// arrived; when they are not each unique, nothing.
    mutating func remember(shortPage hashes: ItemHashes) {
        short = !hashes.values.isEmpty && hashes.areUnique ? Set(hashes.values) : nil
    }

    /// Whether `page`, the page after the short one remembered, whose items as it arrived are `hashes` (nil: its body
    /// is in its file), is the list's tail again; throws when it holds some of the short page's items but goes on past
    /// them. The short page is forgotten; `hashes` are worked out only when one was remembered.
    mutating func endsList(at page: Page, hashes arrived: @autoclosure () -> ItemHashes?) throws(PaginationError) -> Bool {
        guard let remembered = short else { return false }
        short = nil
        let hashes = arrived()?.values ?? []
        guard let last = hashes.last, hashes.contains(where: remembered.contains) else { return false }
        if remembered.contains(last) { return true }
        throw .cannotContinue(
            page: page.number,
            reason: "it holds items of the short page before it again, then others: items were added at the list's head "
                + "while it was walked, or the upstream does not step by the offset asked, so the pages would repeat items")
    }

}
