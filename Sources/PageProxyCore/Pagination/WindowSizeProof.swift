/// The list's first page, asked beside the page a `page-number` window jumped to: what size the upstream really serves
/// a page (attack24 HIGH 1 and HIGH 2).
///
/// A window that jumps by page number counts its pages by the size it asks (`ItemWindow.plan`), and its first page
/// proves that size only by its count (`ItemWindow.FirstPageCheck.holds`). An upstream that serves more a page than
/// asked (it ignores `per_page`, or reads it no lower than a size of its own) or fewer (a cap) fools the count when the
/// page jumped to is its last and holds as many items as the count expects: items 21–30 answered for 11–20 under a 200.
/// With no total, the page before the window's is past such an upstream's end, empty or a 404, and was taken for the
/// list's end: `200 []` where the list has items. Items carry no position, so no count tells; the list's first page,
/// asked with the same size, does: holding another count than the size while the list goes on, the window is walked
/// again from the first page by what it served (`PageWalker.missedWindowPageSize`, `windowServedPageSize`).
///
/// It is asked beside the jumped page, in the same round of fetches: no latency is added, one request more on a cold
/// list, and a cache hit for a scrolling client's later windows (the merged walk's first page is the same URL). Its
/// failure proves nothing, and the jumped page is checked by its count alone, as before.
struct WindowSizeProof {
    enum State {
        /// Not decided yet: the walk's first launch decides it.
        case unasked
        /// Asked, its fetch in flight as a child of the walk's group.
        case fetching(PageWalker.FetchID)
        /// Arrived (read in place, or fetched): the items it held; nil when it failed.
        case arrived(Int?)
        /// Not asked (no page-number jump) or already read against the jumped page.
        case done
    }

    private(set) var state = State.unasked
    /// The items the list's first page held when they did not prove the window's size: what the upstream serves a page.
    private(set) var served: Int?

    /// The fetch to wait for before the jumped page is accepted, while in flight.
    var inFlight: PageWalker.FetchID? {
        if case .fetching(let fetch) = state { fetch } else { nil }
    }

    var isUnasked: Bool {
        if case .unasked = state { true } else { false }
    }

    mutating func notNeeded() { state = .done }

    mutating func asked(_ fetch: PageWalker.FetchID) { state = .fetching(fetch) }

    mutating func arrived(_ result: Result<Page, PaginationError>) {
        state = .arrived(try? result.get().itemCount)
    }

    /// Reads the list's first page against `jumped`, the window's jumped page, and `size`, the size the window counted
    /// by; true: the size is not what the upstream serves (`served` says what it does). More than the size is a miss
    /// whatever the jumped page held; fewer (a cap, or a list shorter than one page) only when the jumped page holds
    /// items (a list that ends within its first page leaves a jump past it empty). An empty first page proves nothing.
    mutating func misses(_ jumped: Page, size: Int) -> Bool {
        guard case .arrived(let held?) = state else {
            state = .done
            return false
        }
        state = .done
        guard held > 0, held != size, held > size || jumped.itemCount > 0 else { return false }
        served = held
        return true
    }
}

extension PageWalker {
    /// Decides the list's first page beside a `page-number` window's jump (`WindowSizeProof`), once, at the walk's
    /// first launch: read in place when the cache has it, else fetched with the jumped page.
    func launchSizeProof() {
        guard sizeProof.isUnasked else { return }
        guard let check = options.windowCheck, check.firstItem > 0, check.jumpsByPageNumber, let first = strategy.listFirstPage(before: firstURL),
            first.origin == origin
        else {
            sizeProof.notNeeded()
            return
        }
        if let response = options.cachedPage?(first, 1) {
            sizeProof.arrived(Result { () throws(PaginationError) in try Self.page(from: response, url: first, number: 1, paths: scanPaths) })
        } else {
            sizeProof.asked(decideFetch(first, number: 1, isGuess: false))
        }
    }

    /// The window's jumped page, the walk's first, against the list's first page (`WindowSizeProof`): another size than
    /// the window counted by fails the walk before the page is handed out, with `missedWindowPageSize` set.
    func checkWindowSizeProof(_ page: Page) throws(PaginationError) {
        guard let check = options.windowCheck, sizeProof.misses(page, size: check.size), let served = sizeProof.served else { return }
        missedWindowPageSize = true
        throw .cannotContinue(
            page: 1,
            reason: "the list's first page holds \(served) items where the window counted pages of \(check.size): the upstream "
                + "serves another size a page than asked, so the window's pages cannot be counted by that size")
    }

    /// With `missedWindowPageSize`, what the upstream was seen to serve a page: the list's first page's count when that
    /// missed the window's size (`WindowSizeProof`), else the walk's first page's.
    package var windowServedPageSize: Int { sizeProof.served ?? firstPageItemCount }
}
