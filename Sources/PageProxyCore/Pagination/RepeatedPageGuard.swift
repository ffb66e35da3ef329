/// Whether a page reached by following the page before (a next link, a cursor, a next-page header) holds that page's
/// items again: the upstream ignored what it sent and answered the same page under a new URL. The URL loop guard
/// cannot see it (every URL is new: Eve's relative href sent back as a growing cursor, real10), so without this the
/// walk went on until `maxPages` and failed with `too_many_pages` after a thousand requests.
///
/// A page's mark is cheap, whatever its size (issue 13: a walk through the cache hashes nothing it need not): its
/// item count, the byte length from its first item's start to its last item's end, and XXH64 of the first and of the
/// last item. A page that repeats matches all four; the next page of an honest upstream starts after the last item
/// of the one before, so its first item differs from that page's first. Empty pages are never compared (an
/// upstream may answer several in a row before its end), and neither are pages PageProxy numbers itself (known ahead
/// from a total or a `last` link, or `page-number` and `offset` walks with no total: `followsUpstream` is false).
struct RepeatedPageGuard {
    private struct Mark: Equatable {
        let count: Int
        let span: Int
        let first: UInt64
        let last: UInt64

        init?(_ page: Page) {
            guard let first = page.items.first, let last = page.items.last else { return nil }
            count = page.items.count
            span = last.range.upperBound - first.range.lowerBound
            self.first = XXHash64.hash(page.body[first.range])
            self.last = XXHash64.hash(page.body[last.range])
        }
    }

    /// The mark of the page before, when it was itself reached by following (or was the first page).
    private var before: Mark?

    /// Checks `page`, reached from the page before by its link or cursor (or the first page), and remembers it.
    mutating func follow(_ page: Page) throws(PaginationError) {
        let mark = Mark(page)
        if let mark, mark == before {
            throw .repeatedPage(page: page.number, url: page.url)
        }
        before = mark
    }

    /// A page that was not reached by following: the next one is not compared with it.
    mutating func skip() {
        before = nil
    }
}
