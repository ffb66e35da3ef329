/// The end of the list (a total, a page count, a `last` link's number) a walk numbered its pages from, checked against
/// every later page's own (review17 B5).
///
/// Pages PageProxy numbers (from a total, or its own page numbers and offsets) hold what the list holds at the moment
/// each is asked for. A list that changed between two of them (items inserted at the head of a newest-first list, rows
/// deleted) shifts the later pages: items come twice or never, and the pages say so only by stating another end. So
/// do pages of two versions of the list met in the cache: a page stored when it was the last (`"next": null`) ends a
/// walk a fresh first page numbered further. A page that states another end than the one the walk numbered from fails
/// the walk (`PaginationError.listChanged`); a server walks once more, revalidating every page, when one came from its
/// cache. Walks that follow the upstream's own links or cursors page by page are not compared: a cursor holds its place
/// in a changing list.
struct StatedEndCheck {
    /// The end the walk numbered from, and the page that stated it; nil until a page states one.
    private var numbered: (end: Int, page: Int)?

    /// Checks `page` against the end the walk numbered from, or remembers its end as that one when the walk has none
    /// yet; `compares` false remembers it in any case (a page reached by the upstream's own link: the pages numbered
    /// after it are numbered from its end).
    mutating func check(_ page: Page, strategy: any PaginationStrategy, compares: Bool = true) throws(PaginationError) {
        guard let end = strategy.statedEnd(on: page) else { return }
        guard compares, let numbered else {
            self.numbered = (end, page.number)
            return
        }
        guard end != numbered.end else { return }
        throw .listChanged(page: page.number, stated: end, numbered: numbered.end)
    }
}
