/// The items a walk's second page holds again of its first, when the first was short of the limit asked under a total
/// that says more (attack14 M6, retest14 M6).
///
/// Such a first page shows either the upstream's cap (JupyterHub serves 200 under a `limit` of 500) or a page filtered
/// after it was cut (an item hidden from this caller, a row deleted but counted): the second page, asked right after
/// the first's items, tells them apart. Counts cannot (a filter that hides as many on both pages looked like a cap,
/// and the walk then stepped by what was served, repeating items on every page); items can: a filtered first page's
/// window reaches past its last item, so the second page starts with the first's last items again. Those are
/// dropped from the second page, and the walk steps by the limit from there. A first page whose items are not each
/// unique (a series with no id) is not compared.
///
/// A first page that hid more than half its window reaches past the whole second page, asked for as many items as
/// the first served: every item there is the first's again, but not its last ones (review26 H1). The first page is
/// then kept for the second asked again with the first's limit (`PaginationStrategy.secondPageAgain`), which starts
/// with the first's last items, as above.
struct FirstPageOverlap {
    /// XXH64 of each of the first page's items, how many of them the second page may repeat, and the first page's URL;
    /// nil when it may not.
    private var first: (hashes: [UInt64], most: Int, url: PageURL)?
    /// The first page's URL while the second page lay inside its window (`repeated(in:)`), until the page asked
    /// again after it is compared.
    private(set) var secondLayInside: PageURL?
    /// Whether the first page's items may come again on the second (it was short under a total that says more),
    /// compared or not.
    private(set) var mayRepeat = false

    /// Remembers the walk's first page, when `most` of its items may come again on the second; `hashes` are its items'
    /// (nil: its body is in its file), worked out only when they are compared.
    mutating func remember(firstPage page: Page, hashes: @autoclosure () -> ItemHashes?, mayRepeat most: Int?) {
        guard let most, most > 0 else { return }
        mayRepeat = true
        guard let hashes = hashes() else { return }
        // Only items that are each unique on the first page say, by coming again, that the pages overlap: equal items
        // (a series with no id, scalars) may be neighbours across a true cap's boundary, and taking them for an overlap
        // stepped the walk past whole pages (review21 F2: a 200 with 699 of 1,000 items).
        guard hashes.areUnique else { return }
        first = (hashes.values, most, page.url)
    }

    /// How many of the second page's first items, `second` (nil: its body is in its file), are the first page's last
    /// ones, in order (0: none; nil: not compared, nothing remembered or a body in its file). The first page is forgotten, unless `second` lay inside its window:
    /// none of its items was the first's last, and every one (if any) was the first's; `secondLayInside` says so.
    mutating func repeated(in second: @autoclosure () -> ItemHashes?) -> Int? {
        let comparesAgain = secondLayInside != nil
        secondLayInside = nil
        guard let remembered = first, let hashes = second()?.values else {
            first = nil
            return nil
        }
        let longest = min(remembered.most, remembered.hashes.count, hashes.count)
        let count = stride(from: longest, through: 1, by: -1).first { Array(remembered.hashes.suffix($0)) == Array(hashes.prefix($0)) } ?? 0
        if count == 0, !comparesAgain, Set(hashes).isSubset(of: Set(remembered.hashes)) {
            secondLayInside = remembered.url
        } else {
            first = nil
        }
        return count
    }
}
