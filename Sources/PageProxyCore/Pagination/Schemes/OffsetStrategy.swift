/// `?offset=N&limit=M`: stop at a total or a short page; fan out once the total is known.
struct OffsetStrategy: PaginationStrategy {
    let options: PaginationScheme.Offset

    var valuePaths: [JSONPath] { [options.totalItemsPath].compactMap { $0 } }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue("0", for: options.offsetParameter)
            .defaultingQueryValue(String(options.limit), for: options.limitParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard page.itemCount > 0 else { return .none }
        let offset = page.url.integerQueryValue(options.offsetParameter) ?? 0
        guard let limit = limit(of: page.url) else {
            throw .cannotContinue(page: page.number, reason: "the \(options.limitParameter) parameter is not a whole number of at least 1")
        }
        try OffsetPageLength.check(page, limit: limit, parameter: options.limitParameter)
        let total = options.totalItemsPath.flatMap { page.values[$0]?.statedCount }
            ?? page.headers.statedCount(options.totalItemsHeader, at: options.totalItemsHeaderPath)
        // A limit the client asked above the route's may be past the upstream's cap (`AskedPageSize`): a short page
        // then says the cap, and offsets step by what the upstream served (attack12 L4: stepping by the limit asked
        // skipped four items of every five, and a short page ended the walk at the first).
        let trusted = AskedPageSize.of(page.url, parameter: options.limitParameter, route: options.limit).trusted
        let (served, servedOverflow) = offset.addingReportingOverflow(page.itemCount)
        // Even the route's own limit may be past the upstream's cap: a short page the total says is not the last
        // (JupyterHub reads a limit above its 200 as 200, without a word: a route's `limit: 500` stepped 0, 500 and
        // answered 400 of 1,000 items under a 200; real13).
        let shortOfTotal = !servedOverflow && total.map { served < $0 } == true
        if !trusted || shortOfTotal, page.itemCount < limit {
            if servedOverflow || total.map({ served >= $0 }) == true { return .none }
            if let total {
                return .all(NumberedPages(template: page.url, parameter: options.offsetParameter, first: served, below: total, step: page.itemCount))
            }
            return .one(page.url.settingQueryValue(String(served), for: options.offsetParameter))
        }
        // The client chooses both numbers: an offset past Int.max cannot be asked for, so this was the last page.
        let (nextOffset, overflow) = offset.addingReportingOverflow(limit)
        if overflow { return .none }
        if let total {
            return .all(NumberedPages(template: page.url, parameter: options.offsetParameter, first: nextOffset, below: total, step: limit))
        }
        if page.itemCount < limit { return .none }
        return .one(page.url.settingQueryValue(String(nextOffset), for: options.offsetParameter))
    }

    var lookahead: Int { options.lookahead }

    var endStatuses: Set<Int> { options.endStatuses }

    func guessNext(after url: PageURL) -> PageURL? {
        guard let limit = limit(of: url) else { return nil }
        return url.advancingQueryValue(options.offsetParameter, by: limit, from: 0)
    }

    /// The page size the URL asks for, or the route's when it names no number; nil when it is below 1.
    private func limit(of url: PageURL) -> Int? {
        let limit = url.integerQueryValue(options.limitParameter) ?? options.limit
        return limit >= 1 ? limit : nil
    }
}
