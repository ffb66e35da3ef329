/// A cheap mark of a page's items, whatever its size (issue 13: a walk through the cache hashes nothing it need not):
/// the item count, the byte length from the first item's start to the last item's end, and XXH64 of the first and of
/// the last item. Two pages with equal marks hold the same items, as far as a walk can afford to tell.
struct PageItemsMark: Equatable {
    let count: Int
    let span: Int
    let first: UInt64
    let last: UInt64

    /// Nil for a page with no items, or whose body is not in memory (`Page.bodyInFile`: the walker reads it first; never
    /// a trap on an input path, review16 B1).
    init?(_ page: Page) {
        guard let first = page.items.first, let last = page.items.last, last.range.upperBound <= page.body.count,
            first.range.upperBound <= page.body.count
        else { return nil }
        count = page.items.count
        span = last.range.upperBound - first.range.lowerBound
        self.first = XXHash64.hash(page.body[first.range])
        self.last = XXHash64.hash(page.body[last.range])
    }

    /// Whether the page's first and last items are alike, though there are two or more: constant values with no id
    /// (`{"v":0}` item after item) look so, a list of distinct items does not.
    var looksConstant: Bool { count > 1 && first == last }
}

extension PageItemsMark {
    /// The page's items as they lie in its body, from the first item's start to the last item's end (empty for a page
    /// with no items): what two pages with equal marks are compared by when a walk must be sure (attack14 M1: pages
    /// alike at their ends, a pinned header and footer row, differ in between). A slice of the body, not a copy.
    static func itemsSpan(of page: Page) -> ArraySlice<UInt8> {
        // A page whose body the cache left in its file (`bodyInFile`) has no bytes here: no span, rather than a read
        // outside the body.
        guard let first = page.items.first, let last = page.items.last, last.range.upperBound <= page.body.count,
            first.range.lowerBound <= last.range.upperBound
        else { return [] }
        return page.body[first.range.lowerBound..<last.range.upperBound]
    }
}
