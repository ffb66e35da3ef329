/// The pages of an offset walk after a first page that hid more than half its window, stepped by no more than the
/// upstream's window is known to hold (offset20; retest19's 48 cells of a cap under `mock_show_every=3`).
///
/// Such a walk asks its second page again with the first's `limit` (`FirstPageOverlap`, review26 H1) and stepped by
/// that `limit` from there. But the upstream may cap its window below the `limit` (JupyterHub's 200, DRF's
/// `max_limit`): its pages then hold the positions up to the cap, and each step by the `limit` never asked the
/// positions between (a `200` with missing items; no count tells a cap from a filter that hides as many). So the walk
/// steps by what the pages show the window holds at least, `bound`: the positions a page holds are at least its items,
/// and at least its offset's distance from the page before plus the items of that page it holds again (those lie in
/// both windows). Each page is asked at the page before's offset plus `bound`, with the `limit`; the items it holds
/// again of the page before (the page before's last, in order) are dropped. `bound` grows with every overlap it
/// sees; once it reaches the `limit`, the window holds the `limit` (no cap below it) and the walk steps by the `limit`
/// again, as before (numbered ahead under a total). A cap below the `limit` is never stepped past: the walk asks
/// more pages than stepping by the `limit` (about `limit` ÷ `bound` times), and loses nothing.
///
/// An upstream that serves a size of its own, more items than the `limit` asked (it ignores `limit`, or reads it no
/// lower than a size of its own: `mock_ignores=limit`, `mock_limit_floor=N`), is stepped so from its first page on,
/// with no `limit` to reach (`start(ownSize:offset:)`): before, such a page failed the walk (`OffsetPageLength`), and
/// an own size one over the step (a first page that hid one item) handed one item a page out twice (fix34).
///
/// A page that holds items of the page before past its first ones (not its repeated lead) is no continuation: ending
/// with one of them, it is the list's tail again past its end (Django's `get_page()`, mock `mock_past_end=last`), and
/// the list ended at the page before (this page is dropped); else the walk fails. Items not each unique on a page, or
/// a body that cannot be read, are not compared: such a walk steps by the `limit`, as before.
struct FilteredWindowStep {
    /// The fewest positions the upstream's window is known to hold; nil when the walk does not step by it.
    private(set) var bound: Int?
    /// The page before as it arrived: its items' XXH64 (each unique) and its offset.
    private var before: (hashes: [UInt64], offset: Int)?
    /// Whether the upstream serves a size of its own, more than the `limit` asked: the walk steps by `bound` to the
    /// list's end, whatever the `limit`.
    private(set) var servesOwnSize = false
    /// The positions the walk asked again while stepping: the second page's, wholly inside the first page's window, and
    /// each stepped page's overlap with the page before (the `limit` less its step). Counted by the `limit` asked.
    private var positionsAskedAgain = 0
    /// The `limit` the stepped pages ask.
    private var limitAsked = 0
    /// How many pages of the `limit` the walk asked again while stepping: pages that move it on by no new page of the list,
    /// which the route's `maxPages` does not count (review20 M5: a walk of 100 positions under `maxPages: 12` took 13
    /// requests stepped so, and failed `too_many_pages`, where 12 answered it before).
    var pagesAskedAgain: Int { limitAsked > 0 ? positionsAskedAgain / limitAsked : 0 }

    /// What the page after the page before is.
    enum Continuation: Equatable {
        /// It goes on from the page before, its first `repeated` items that page's again.
        case continues(repeated: Int)
        /// It is the list's tail again, past its end: the list ended at the page before.
        case tailAgain
    }

    /// Starts stepping at `page`, the second page asked again with the first's `limit` at `offset` (the first page's at
    /// `firstOffset`), whose first `repeated` items were the first page's again (dropped); `hashes` are its items' as it
    /// arrived. Nothing when the window is already known to hold the `limit`, or the items are not each unique.
    mutating func start(hashes: ItemHashes, offset: Int, firstOffset: Int, repeated: Int, limit: Int) {
        let known = max(hashes.values.count, offset - firstOffset + repeated)
        // The second page lay inside the first's window (asked again, here), and this page starts inside it too.
        if limit > 0, offset >= firstOffset {
            limitAsked = limit
            positionsAskedAgain = limit + max(0, limit - (offset - firstOffset))
        }
        guard known < limit, known > 0, hashes.areUnique else {
            (bound, before) = (nil, nil)
            return
        }
        (bound, before) = (known, (hashes.values, offset))
    }

    /// Starts stepping at the walk's first page, at `offset`, whose items `hashes` outnumber the `limit` it asked: the
    /// upstream serves a size of its own, at least as many positions as it served. Nothing when the items are not each
    /// unique (the pages' overlap cannot be seen: the walk fails as before, `OffsetPageLength`).
    mutating func start(ownSize hashes: ItemHashes, offset: Int) {
        guard !hashes.values.isEmpty, hashes.areUnique else { return }
        (bound, before, servesOwnSize) = (hashes.values.count, (hashes.values, offset), true)
    }

    /// Reads `hashes`, the items of the page after the page before as it arrived, at `offset`: how many of its first
    /// items are the page before's last again, or the list's tail again; `bound` grows by what the overlap showed.
    /// Stops stepping (nil `bound`) when the items are not each unique or the window is shown to hold `limit`.
    mutating func read(hashes arrived: ItemHashes, offset: Int, limit: Int, page number: Int) throws(PaginationError) -> Continuation {
        guard let known = bound, let previous = before else { return .continues(repeated: 0) }
        let hashes = arrived.values
        let limit = servesOwnSize ? Int.max : limit
        guard arrived.areUnique else {
            if servesOwnSize {
                throw .cannotContinue(
                    page: number,
                    reason: "its items are not each unique, where the upstream serves more a page than the limit asked: how far the "
                        + "pages overlap cannot be seen, so they could repeat items")
            }
            (bound, before) = (nil, nil)
            return .continues(repeated: 0)
        }
        // The page before's items from this page's first on lead this page, in order.
        var repeated = 0
        if let first = hashes.first, let start = previous.hashes.firstIndex(of: first) {
            let shared = previous.hashes.count - start
            if shared <= hashes.count, previous.hashes[start...].elementsEqual(hashes.prefix(shared)) { repeated = shared }
        }
        // An upstream serving its own size, stepped by no more than its window: a page of nothing but the page before's
        // last items holds nothing past that page's window: the list's end (an upstream answering past its end with its
        // last page served it again, and stepping on would ask it to `maxPages`).
        if servesOwnSize, !hashes.isEmpty, repeated == hashes.count {
            (bound, before) = (nil, nil)
            return .tailAgain
        }
        let earlier = Set(previous.hashes)
        if hashes.dropFirst(repeated).contains(where: earlier.contains) {
            // Items of the page before past this page's repeated lead: ending with one, the list's tail again.
            if let last = hashes.last, earlier.contains(last) {
                (bound, before) = (nil, nil)
                return .tailAgain
            }
            throw .cannotContinue(
                page: number,
                reason: "it holds items of the page before again past its first ones: the list changed while it was walked, or the "
                    + "upstream does not step by the offset asked, so the pages would repeat items")
        }
        let step = offset - previous.offset
        if !servesOwnSize, step >= 0, step < limit {
            limitAsked = limit
            let (sum, overflow) = positionsAskedAgain.addingReportingOverflow(limit - step)
            positionsAskedAgain = overflow ? Int.max : sum
        }
        let grown = max(known, hashes.count, step > 0 ? step + repeated : 0)
        (bound, before) = grown < limit ? (grown, (hashes, offset)) : (nil, nil)
        return .continues(repeated: repeated)
    }
}
