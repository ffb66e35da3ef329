/// An upstream that does not read the parameter PageProxy numbers its pages by answers every page with the first
/// one. Flask-AppBuilder reads its page only inside a Rison `q` (`?q=(page:2,page_size:100)`) and ignores `page=2`
/// (real14): a `page-number` or `offset` route with a total got the first page ten times over, a 200 with the right
/// count of items and nine tenths of them repeats; without a total the walk ran to `maxPages`. Neither guard of a
/// followed walk sees it (`RepeatedPageGuard` compares only pages reached by a link or cursor, `PastEndRepeat` only
/// under a page size the upstream may cap).
///
/// So the second page of a walk PageProxy numbers itself is compared with the first (its `PageItemsMark` kept, the
/// cost of a hash of two items): the same items there end the walk with an error that says why. An honest upstream's
/// second page starts after its first; items that look constant (`PageItemsMark.looksConstant`) are not compared.
struct IgnoredPageNumber {
    /// The first page's items: their mark, and their bytes (a slice of its body, held until the second page) for when
    /// the marks are equal (pages that share only a header and a footer row are not alike: attack14 M1).
    private var first: (mark: PageItemsMark, span: ArraySlice<UInt8>)?

    /// Whether the guard reads the bytes of the page at `index`: the first two pages, remembered and compared (as
    /// `FirstPageOverlap` does; review19 B2: with the bodies left in files it saw no items).
    func readsBytes(ofPageAt index: Int) -> Bool { index < 2 }

    /// Remembers the walk's first page.
    mutating func remember(firstPage page: Page) {
        first = PageItemsMark(page).map { ($0, PageItemsMark.itemsSpan(of: page)) }
    }

    /// Checks the walk's second page, numbered by PageProxy (a page number or offset set on the first page's URL).
    mutating func check(secondPage page: Page) throws(PaginationError) {
        defer { first = nil }
        guard holdsFirstAgain(page) else { return }
        throw Self.failure(secondPage: page.url)
    }

    /// Whether `page`, the walk's second, holds the first page's items again (items that look constant never do).
    func holdsFirstAgain(_ page: Page) -> Bool {
        guard let first, let mark = PageItemsMark(page), mark == first.mark, !mark.looksConstant else { return false }
        return PageItemsMark.itemsSpan(of: page).elementsEqual(first.span)
    }

    /// The walk's failure when its second page, at `url`, holds the first page's items again.
    static func failure(secondPage url: PageURL) -> PaginationError {
        .cannotContinue(
            page: 1,
            reason: "page 2 (\(url)) holds the first page's items again: the upstream does not read the parameter the "
                + "route numbers its pages by (it may take its page elsewhere, e.g. inside a `q` parameter), and every page "
                + "would repeat the first")
    }
}
