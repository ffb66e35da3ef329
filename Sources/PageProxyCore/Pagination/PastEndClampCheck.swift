/// The page a walk asks after one that held the page before's items again (`PastEndRepeat`), to tell an upstream that
/// answers every page past its end with its last (Django's `Paginator.get_page()`; walk18: 30 items, 10 a page, under
/// the route's own size, ran to `maxPages` and a 502) from data that repeats with the page size (weekdays under
/// `per_page=7`), which the two pages alone cannot.
///
/// The page asked is far past any the walk reaches (`PaginationStrategy.pageFarPast`, by the route's `maxPages`): the
/// same items there again are the upstream's habit, and the list ended before the repeat (complete, not flagged).
/// Anything else (no items, other items, any failure) leaves the data's own repeat possible: the walk ends at the
/// repeat all the same, flagged as maybe cut (`PageWalker.endedOnRepeat`). Either way the repeat is not handed out;
/// one page a walk, and only after a repeat.
struct PastEndClampCheck {
    /// The check page's index (as in the walker's `urls`), once asked.
    private var index: Int?
    /// The repeated items as they lie in the repeat's body (a slice of it, held until the check page).
    private var repeated: ArraySlice<UInt8> = []
    /// Whether the check page is the list's first, asked for a window's jump whose second page repeated it
    /// (`PaginationStrategy.listFirstPage`): the same items there are an upstream that ignores the page number.
    private(set) var isListFirstPage = false
    /// The repeat's URL, named by the failure when the list's first page shows the page number ignored.
    private(set) var repeatURL: PageURL?

    /// Whether the page at `index` is the check page (its bytes are read: a body the cache left in its file first).
    func isCheck(_ index: Int) -> Bool { self.index == index }

    /// The check page is asked at `index`, after `repeatedPage`, whose body is in memory.
    mutating func asked(at index: Int, after repeatedPage: Page, listFirstPage: Bool = false) {
        self.index = index
        repeated = PageItemsMark.itemsSpan(of: repeatedPage)
        isListFirstPage = listFirstPage
        repeatURL = repeatedPage.url
    }

    /// Whether `page`, the check page, holds the repeated items again: the upstream's answer to any page past its end.
    func showsLastPageRepeated(_ page: Page) -> Bool {
        !repeated.isEmpty && PageItemsMark.itemsSpan(of: page).elementsEqual(repeated)
    }
}
