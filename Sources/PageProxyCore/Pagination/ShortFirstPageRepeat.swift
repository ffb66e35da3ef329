/// A walk's short first page (maybe the upstream's cap: `PaginationStrategy.secondPageMayRepeat`) whose second page,
/// asked right after its items, holds them all again (retest21 LOW B: `/drfnt?mock_total=5&mock_past_end=last`, a list
/// of 5 under a `limit` of 10, was a `502 pagination_stuck`). An upstream that answers past its end with its last page
/// (Django's `get_page()`) says so when the list is that page; one that ignores the offset (`IgnoredPageNumber`) repeats
/// its first page everywhere. The first page asked one position on tells them apart: the first page's second item first
/// there is an upstream that reads the offset, and the list is the first page; anything else fails the walk as before.
/// A first page of one item has no second to ask from: it is the whole list (no upstream caps its pages at one item).
/// One request more, only where the second page repeated the first.
/// The check page of a list that is the first page holds exactly its items from the second on, one fewer: data that
/// repeats with the page size (a series with no id, `mock_period`) starts with the second item there too, but holds a
/// full page, and the list goes on (review25 HIGH: `/drfnt?mock_total=40&mock_period=10` answered 10 of 40 items).
struct ShortFirstPageRepeat {
    /// The check page's index (as in the walker's `urls`), once asked.
    private var index: Int?
    /// The hash of the first page's second item: what the check page starts with when the upstream reads the offset.
    private var secondItem: UInt64 = 0
    /// How many items the first page held: the check page of a list that is that page holds one fewer.
    private var firstCount = 0
    /// The repeat's URL, named by the failure when the check shows the offset ignored.
    private(set) var repeatURL: PageURL?

    /// Whether the page at `index` is the check page (its bytes are read: a body the cache left in its file first).
    func isCheck(_ index: Int) -> Bool { self.index == index }

    /// The check page is asked at `index`, after `repeated`, the second page holding the first's items again (their
    /// hashes `items`, two or more).
    mutating func asked(at index: Int, after repeated: Page, items: ItemHashes) {
        self.index = index
        secondItem = items.values[1]
        firstCount = items.values.count
        repeatURL = repeated.url
    }

    /// Whether `page`, the check page, starts with the first page's second item and holds one item fewer than the first
    /// page: the upstream reads the offset, and the list is the first page.
    func showsPositionRead(_ page: Page) -> Bool {
        guard page.bodyInFile == nil, page.items.count == firstCount - 1, let first = page.items.first,
            first.range.upperBound <= page.body.count
        else { return false }
        return XXHash64.hash(page.body[first.range]) == secondItem
    }
}
