/// Whether a page reached by following the page before (a next link, a cursor, a next-page header) holds that page's
/// items again because the upstream ignored what it sent and answered the same page under a new URL. The URL loop
/// guard cannot see it (every URL is new: Eve's relative href sent back as a growing cursor, real10), so without this
/// the walk went on until `maxPages` and failed with `too_many_pages` after a thousand requests.
///
/// The same items twice are not a loop by themselves: a series of constant values with no id (`{"v":0}` page after
/// page) is legitimate, and its pages are byte for byte alike but for the link on (loose12). What a loop repeats that
/// such data does not is the way on: an upstream that answers the same page again, link or cursor included, will
/// answer it forever, and ends the walk at once. A page whose items repeat under a new way on is either such data or
/// an upstream that turns an ignored number into a new link each time (`again=2`, `again=3`, …), which no two pages
/// tell apart: the walk goes on, and ends only after `maxRepeatsInRow` such pages in a row, not at `maxPages`.
///
/// A page's mark is cheap, whatever its size: its items' (`PageItemsMark`), and XXH64 of its way on: the body outside
/// the items (a next URL, a cursor, `has_more`) and the header the scheme reads the next page from (`Link`,
/// `Next-Page`). The next page of an honest upstream starts after the last item of the one before, so its first item
/// differs from that page's first, or its items are alike and its way on moves. Empty pages are never compared (an upstream may answer several in a row before its end), and neither are
/// pages PageProxy numbers itself (known ahead from a total or a `last` link, or `page-number` and `offset` walks with
/// no total: `followsUpstream` is false; `PastEndRepeat` compares a page-number walk's under a size it cannot trust).
package struct RepeatedPageGuard {
    /// How many pages in a row may hold the items of the page before under a new way on; the next one ends the walk.
    /// A tenth of the default `maxPages`: a loop costs ~100 requests, not 1000 (or a million, at the largest
    /// `maxPages`), and a constant series passes unless it repeats one page's items more than 100 times in a row.
    package static let maxRepeatsInRow = 100

    private struct Mark {
        let items: PageItemsMark
        let wayOn: UInt64

        init?(_ page: Page, wayOnHeader: String?) {
            // `PageItemsMark` is nil for a body not in memory: no slice below is out of its bounds.
            guard let items = PageItemsMark(page), let first = page.items.first, let last = page.items.last else { return nil }
            self.items = items
            // Seeded in turn, so that bytes moved from before the items to after them are a new way on.
            var wayOn = XXHash64.hash(page.body[..<first.range.lowerBound])
            wayOn = XXHash64.hash(page.body[last.range.upperBound...], seed: wayOn)
            // Each value of the header in turn, with no copy (this runs for every page of a followed walk).
            if let wayOnHeader {
                for (name, value) in page.headers where HTTPHeaders.namesEqual(name, wayOnHeader) {
                    wayOn = XXHash64.hash(value.utf8, seed: wayOn)
                }
            }
            self.wayOn = wayOn
        }
    }

    /// Whether the guard reads the bytes of the pages of a walk under `strategy`: every page, when it follows the
    /// upstream's links or cursors.
    static func readsBytes(under strategy: any PaginationStrategy) -> Bool { strategy.followsUpstream }

    /// The mark of the page before, when it was itself reached by following (or was the first page).
    private var before: Mark?
    /// How many pages in a row have held the items of the page before under a new way on.
    private var repeatsInRow = 0

    /// Checks `page`, reached from the page before by its link or cursor (or the first page), and remembers it.
    /// - Parameter wayOnHeader: the response header the scheme reads the next page from, if it reads one.
    mutating func follow(_ page: Page, wayOnHeader: String?) throws(PaginationError) {
        let mark = Mark(page, wayOnHeader: wayOnHeader)
        defer { before = mark }
        guard let mark, let before, mark.items == before.items else {
            repeatsInRow = 0
            return
        }
        repeatsInRow += 1
        if mark.wayOn == before.wayOn || repeatsInRow > Self.maxRepeatsInRow {
            throw .repeatedPage(page: page.number, url: page.url)
        }
    }

    /// A page that was not reached by following: the next one is not compared with it.
    mutating func skip() {
        before = nil
        repeatsInRow = 0
    }
}
