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
        guard let place = Place(page) else { return nil }
        self.init(place, in: page.body[...])
    }

    /// The mark of the items at `place` in `body`, the whole body of the page `place` was read from.
    init(_ place: Place, in body: ArraySlice<UInt8>) {
        count = place.count
        span = place.last.upperBound - place.first.lowerBound
        first = XXHash64.hash(body[place.first])
        last = XXHash64.hash(body[place.last])
    }

    /// Where a page's items lie, as its mark is worked out from: how many, and the ranges of the first and the last in
    /// its body; the hashes are left until a comparison needs them (`PastEndRepeat`).
    struct Place {
        let count: Int
        let first: Range<Int>
        let last: Range<Int>

        /// Nil where `PageItemsMark(page)` is: no items, or a body not in memory.
        init?(_ page: Page) {
            guard let first = page.items.first, let last = page.items.last, last.range.upperBound <= page.body.count,
                first.range.upperBound <= page.body.count
            else { return nil }
            (count, self.first, self.last) = (page.items.count, first.range, last.range)
        }
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
