/// The pages a walk's scheme numbered ahead (a total, a `last` link): their guards, and their URLs built as the
/// window reaches them.
extension PageWalker {
    /// `page`, one of the pages the scheme numbered ahead (from a total or a `last` link): its guards, and the end of
    /// the list it states or links past.
    func acceptNumbered(_ page: inout Page) throws(PaginationError) {
        repeats.skip()
        if nextToTake == 2 && firstNumberedPage == 1 { try ignoredNumber.check(secondPage: page) }
        try statedEnd.check(page, strategy: strategy)
        // Its next is read for the links on it alone, unreadable ones ignored; the page itself is checked (an
        // offset page longer than its limit: the upstream reads another limit, which no revalidating walk mends),
        // before its size is compared with the pages numbered beside it (review23 F4).
        let followsShortPage = numberedSize.sawShortPage
        try numberedSize.check(page, index: nextToTake - 1, strategy: strategy)
        // A page after a short one passes only empty: the list ended at the short page, short of its total. A short
        // page the walk stopped at (a window's page count, `_max_pages`) proves no end: an upstream that filters a
        // page after cutting it has more after it, and the answer stays truncated (review25 M2).
        if followsShortPage { endedShortOfTotal = true }
        let next = try? strategy.next(after: page)
        try checkLinkOrigin(next, on: page)
        // The last page a total or a `last` link numbered ahead still links on: the list is longer than it said
        // (it grew during the walk; DRF and Tastypie count per request). Its links are followed on, as a walk
        // with no total would (attack7 F2: a 200 with the first pages only, and no word of it). Not past a cap.
        // Only a scheme whose every page states its own end links on: a numbered page's `next` is arithmetic on
        // that page's own size (a short last page would number pages past the end; review11).
        if nextToTake == knownCount, isListComplete, !wasTruncated, strategy.statesEachEnd, let next, !next.isNone {
            isListComplete = false
            pending = nil
            // The stated total said the list ended here: a 404 at the page linked past it agrees, and ends the
            // walk quietly (a cached last page that linked on when the list was longer; review11).
            pastEnd.linkedPastStatedEnd(at: urls.count)
            try append(next, after: page)
        } else if nextToTake == knownCount, isListComplete, !wasTruncated, !strategy.statesEachEnd,
            // (A filtered first page's count is no cap: full only at the limit.)
            let after = strategy.pageAfterStatedEnd(page, firstPageItemCount: firstPageFiltered ? Int.max : firstPageItemCount)
        {
            // The last page a total numbered is full: the total may be lower than the truth (PostgREST's
            // estimated counts; review17 B10), so the page after it is asked for; empty, or a 404, 410 or 416,
            // it ends the walk.
            _ = try goesPastStatedEnd(to: after, from: &page)
        } else if nextToTake < knownCount, strategy.statesEachEnd, next?.isNone == true {
            // A page among them says it is the last: the pages numbered past it are past the list's end (a
            // total that was too high; an upstream that answers any page past the end with its last page
            // would repeat items; attack7 F3).
            endShortOfTotal()
        }
    }

    /// A numbered page's own next link is not followed (its URL was built from the template), but one that leaves the
    /// origin still ends the walk, as it would a sequential one: the upstream is not what the route describes, or is
    /// hostile (DESIGN.md: a next link elsewhere is an error). Other paths on the origin are fine (GitHub's later
    /// links point to /repositories/<id>/…), and a link that cannot be read is ignored, since nothing follows it.
    func checkLinkOrigin(_ next: NextPages?, on page: Page) throws(PaginationError) {
        let linked: PageURL.Origin
        switch next {
        case .one(let url): linked = url.origin
        case .all(let pages): linked = pages.template.origin
        case NextPages.none?, nil: return
        }
        guard linked == origin else {
            throw .foreignOrigin(page: page.number, refused: linked.description, allowed: origin.description)
        }
    }

    /// Builds and checks the next URL of the pages known ahead; nil when none is left.
    func takePending() throws(PaginationError) -> PageURL? {
        guard let (pages, index, end) = pending, index < end else { return nil }
        pending = (pages, index + 1, end)
        let url = pages.url(at: index)
        guard seen.insert(url) else { throw .loop(page: urls.count + 1, url: url) }
        return url
    }

    /// Builds the URLs the window reaches (up to `concurrency` pages past the next one to take), no more.
    func buildWindow() throws(PaginationError) {
        while urls.count < min(knownCount, windowEnd), let url = try takePending() {
            urls.append(url)
        }
    }
}
