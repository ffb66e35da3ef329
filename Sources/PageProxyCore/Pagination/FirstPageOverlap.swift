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
struct FirstPageOverlap {
    /// XXH64 of each of the first page's items, and how many of them the second page may repeat; nil when it may not.
    private var first: (hashes: [UInt64], most: Int)?

    /// Remembers the walk's first page, when `most` of its items may come again on the second.
    mutating func remember(firstPage page: Page, mayRepeat most: Int?) {
        guard let most, most > 0, page.bodyInFile == nil else { return }
        let hashes = page.items.map { XXHash64.hash(page.body[$0.range]) }
        // Only items that are each unique on the first page say, by coming again, that the pages overlap: equal items
        // (a series with no id, scalars) may be neighbours across a true cap's boundary, and taking them for an overlap
        // stepped the walk past whole pages (review21 F2: a 200 with 699 of 1,000 items).
        guard Set(hashes).count == hashes.count else { return }
        first = (hashes, most)
    }

    /// How many of `second`'s first items are the first page's last ones, in order (0: none; nil: not compared,
    /// nothing remembered or a body in its file); the first page is forgotten.
    mutating func repeated(in second: Page) -> Int? {
        defer { first = nil }
        guard let first, second.bodyInFile == nil else { return nil }
        let longest = min(first.most, first.hashes.count, second.itemCount)
        guard longest > 0 else { return 0 }
        let leading = second.items.prefix(longest).map { XXHash64.hash(second.body[$0.range]) }
        for count in stride(from: longest, through: 1, by: -1) where Array(first.hashes.suffix(count)) == Array(leading.prefix(count)) {
            return count
        }
        return 0
    }
}
