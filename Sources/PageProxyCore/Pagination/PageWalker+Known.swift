/// The pages a walk knows of: what the scheme says comes after a page is added under the caps, and every URL passes
/// the walk's guards (its origin, never seen before) before it is requested.
extension PageWalker {
    /// Adds `next`, what the scheme says comes after `page`, to the pages known: none (the list is complete), one, or
    /// many numbered ahead, cut at the client's `_max_pages` and refused past the route's `maxPages`. A check page that
    /// adds no item to the answer (`PastEndClampCheck`), or the second page asked again (`secondPageAgain`), is not
    /// cut at `_max_pages` or the window's page count.
    func append(_ next: NextPages, after page: Page, isCheckPage: Bool = false) throws(PaginationError) {
        let count: Int
        switch next {
        case .none:
            isListComplete = true
            discardSpeculation()
            return
        case .one: count = 1
        case .all(let pages): count = pages.count
        }
        // Both caps are checked on the count, before any URL is built: an upstream may claim 10^18 pages.
        var kept = count
        if !isCheckPage, let cut = standing.cutAtPageCap(count, known: knownPages) {
            kept = cut
            isListComplete = true
            wasTruncated = true
        }
        // One page past `maxPages`, known only from the page before (no total): asked, as a list of exactly `maxPages`
        // full pages shows its end only there; it fails the walk if it holds an item (contract22 F2: such a list was
        // refused "more than N pages").
        let pastMaxPagesIndex: Int? = if case .one = next, !isCheckPage { urls.count } else { nil }
        try standing.charge(kept, small: smallPageCharge(of: next, kept: kept), known: knownPages, pastMaxPagesIndex: pastMaxPagesIndex)
        switch next {
        case .none: return
        case .one(let url):
            if kept == 1 {
                try check(url, number: urls.count + 1, after: page)
                if !strategy.endStatuses.isEmpty { openEnded.insert(urls.count) }
                adopt(url)
            }
        case .all(let pages):
            isListComplete = true
            // Every numbered page is the template with one parameter set: its origin is the template's.
            guard pages.template.origin == origin || kept == 0 else {
                throw .foreignOrigin(page: page.number, refused: pages.template.origin.description, allowed: origin.description)
            }
            pending = (pages, 0, kept)
            firstNumberedPage = urls.count
            endStatusEndsFrom = strategy.endStatusEndsFrom(pages, after: page).map { urls.count + $0 }
            let size = strategy.itemsPerNumberedPage(pages, after: page)
            numberedSize.numbered(servedCapShown ? size.map { NumberedPageSize(items: $0.items, exact: true) } : size, from: urls.count, count: pages.count)
            // Speculative fetches are matched against the first pages now; the rest are built as the window needs them.
            while !speculative.isEmpty, let url = try takePending() { adopt(url) }
        }
        if isListComplete { discardSpeculation() }
    }

    /// What `kept` pages of `next` add to the pages `maxPages` counts, when a walk that showed a filter asks fewer
    /// positions a page than the list's `limit` (`SmallPageCharge`); nil when each counts one.
    private func smallPageCharge(of next: NextPages, kept: Int) -> (charge: Int, step: Int, limit: Int)? {
        guard firstPageFiltered, kept > 0, let position = strategy.positionParameters.first, let limit = strategy.sizeAsked(by: firstURL)
        else { return nil }
        let step: Int?
        switch next {
        case .none: step = nil
        case .one(let url): step = strategy.sizeAsked(by: url)
        case .all(let pages): step = pages.parameter == position ? min(pages.step, strategy.sizeAsked(by: pages.template) ?? pages.step) : nil
        }
        guard let step, let charge = standing.smallPageCharge(adding: kept, step: step, limit: limit) else { return nil }
        return (charge, step, limit)
    }

    /// The guards every page URL passes before it is requested.
    func check(_ url: PageURL, number: Int, after page: Page) throws(PaginationError) {
        // DESIGN.md: a next link elsewhere is an error, never a request (SSRF).
        guard url.origin == origin else {
            throw .foreignOrigin(page: page.number, refused: url.origin.description, allowed: origin.description)
        }
        guard seen.insert(url) else { throw .loop(page: number, url: url) }
    }

    /// Appends a built URL; a speculative fetch that guessed it becomes the real one, a wrong guess cancels the rest.
    func adopt(_ url: PageURL) {
        if let guess = speculative.first, guess.url.isSamePage(as: url), nextToLaunch == urls.count {
            fetching[urls.count] = guess.fetch
            nextToLaunch += 1
            speculative.removeFirst()
        } else {
            if let guess = speculative.first, !guess.url.isSamePage(as: url) { learn(missed: guess.url, actual: url) }
            discardSpeculation()
        }
        urls.append(url)
    }
}
