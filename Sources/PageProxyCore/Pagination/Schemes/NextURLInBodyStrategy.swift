/// A next URL in the body (DRF `next`, JSON:API `links.next`), absolute or relative; null or absent ends the walk.
/// With a total in the body and a next link that numbers its pages, the remaining pages are known ahead.
struct NextURLInBodyStrategy: PaginationStrategy {
    let options: PaginationScheme.NextURLInBody

    var statesEachEnd: Bool { true }

    var followsUpstream: Bool { true }

    var valuePaths: [JSONPath] {
        [options.nextPath, selfPath, lastPath, options.totalItemsPath, options.totalPagesPath, options.morePath].compactMap { $0 }
    }

    /// The `last` link beside the next link (`links.next` → `links.last`, `_links.next.href` → `_links.last.href`):
    /// SAFRS leaves `next` out of the page before the one `last` names (`nextSameAsLast`).
    private var lastPath: JSONPath? {
        var components = options.nextPath.components
        guard let index = components.lastIndex(of: .key("next")), index >= components.count - 2 else { return nil }
        components[index] = .key("last")
        return JSONPath(components: components)
    }

    /// A HAL-style next link's sibling `self` link (`_links.next.href` → `_links.self.href`), which tells what the
    /// links are relative to (`linkBase`).
    private var selfPath: JSONPath? {
        let components = options.nextPath.components
        guard components.count >= 2, Array(components.suffix(2)) == [.key("next"), .key("href")] else { return nil }
        return JSONPath(components: Array(components.dropLast(2)) + [.key("self"), .key("href")])
    }

    func firstPage(from base: PageURL) -> PageURL { base }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        if PageSaysNoMore.at(options.morePath, of: page) { return .none }
        guard let link = try Self.link(at: options.nextPath, of: page) ?? nextSameAsLast(of: page) else { return .none }
        guard let next = linkBase(of: page, for: link).resolving(link) else { throw .invalidNextLink(page: page.number, link: link) }
        // The link's own numbering, continued to the total: page=2, 3 … or offset=10, 20 … (the numbers are the
        // upstream's; NumberedPages counts them without overflow and the walk checks the count before any URL),
        // when the link is this page's URL renumbered and nothing else (no cursor beside the number).
        if let pages = expectedPageCount(after: page), pages > page.number,
            let numbering = PageNumbering(from: page.answeredURL, to: next, itemCount: page.itemCount),
            numbering.renumbers(page.answeredURL, as: next)
        {
            let (span, spanOverflow) = (pages - page.number - 1).multipliedReportingOverflow(by: numbering.step)
            let (last, lastOverflow) = numbering.first.addingReportingOverflow(span)
            if !spanOverflow && !lastOverflow {
                return .all(NumberedPages(template: next, parameter: numbering.parameter, first: numbering.first, through: last, step: numbering.step))
            }
        }
        return .one(next)
    }

    /// A page with no next link whose `last` link names the page right after it (the next offset by the page's item
    /// count, or the next page number): that is its next page. SAFRS drops a `next` equal to `last` (real14): where
    /// the count is no multiple of the limit, following `next` alone ended the walk a page short, a 200 with 900 of
    /// 1000 items even with the total known, since a page among those numbered ahead that says it is the last ends
    /// them (attack7 F3). A `last` that names this page, an earlier one, or one further on is no next page: the page is
    /// the last as before, and so is one at an offset the stated total does not reach (SAFRS's `last` for 1000 items
    /// by 100 is offset 1000, an empty page; without the total that page costs one request).
    private func nextSameAsLast(of page: Page) -> String? {
        guard let lastPath, case .string(let last)? = page.values[lastPath], let url = linkBase(of: page, for: last).resolving(last),
            let numbering = PageNumbering(from: page.url, to: url, itemCount: page.itemCount),
            numbering.isPlain(itemCount: page.itemCount, next: url)
        else { return nil }
        if let path = options.totalItemsPath, let total = page.values[path]?.statedCount, PageNumbering.isOffsetName(numbering.parameter),
            numbering.first >= total
        {
            return nil
        }
        return last
    }

    /// The next link at `path`; nil when null, absent, empty or `false` (the last page, as auto-detection reads it too;
    /// review12). Any other value is no link and no end either (attack11 L5: `"next": 5` or `{"a":1}` ended the walk
    /// as complete, with a 200).
    private static func link(at path: JSONPath, of page: Page) throws(PaginationError) -> String? {
        let kind: String
        switch page.values[path] {
        case nil, .null, .bool(false): return nil
        case .string(let text): return text.isEmpty ? nil : text
        case .object: kind = "an object (a link object? name its member: \"\(path).href\")"
        case let other?: kind = other.shortDescription
        }
        throw .cannotContinue(page: page.number, reason: "its next link at \"\(path)\" is \(kind), not a URL string or null")
    }

    /// What the page's `link` resolves against: the URL that answered the page (RFC 3986 §5.1.3, `Page.answeredURL`), unless the link is a relative path and a
    /// HAL `self` link names the page by a relative path that ends the page's own: then the API's root that path is
    /// relative to. Eve writes its links relative to the API's root (`people/5ab/invoices?page=2` on
    /// `/api/people/5ab/invoices`), which the page's directory is only for a resource one segment under the root.
    private func linkBase(of page: Page, for link: String) -> PageURL {
        let answered = page.answeredURL
        guard let selfPath, Self.isRelativePath(link), let own = page.values[selfPath]?.nonEmptyString, Self.isRelativePath(own),
            let ownPath = own.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first, !ownPath.isEmpty,
            answered.path.hasSuffix("/" + ownPath)
        else { return answered }
        let root = String(answered.path.dropLast(ownPath.count))
        return PageURL(scheme: answered.scheme, host: answered.host, port: answered.port, path: root, query: nil)
    }

    /// Whether `reference` is a relative-path reference (RFC 3986 §4.2): no scheme, no leading `/`, `?` or `#`.
    private static func isRelativePath(_ reference: String) -> Bool {
        guard let first = reference.first, !"/?#".contains(first) else { return false }
        let beforeSlash = reference.prefix { $0 != "/" }
        return !beforeSlash.contains(":")
    }

    var statesAnEstimate: Bool { options.totalIsEstimate || StatedEnd.namesAnEstimate(options.totalItemsPath) }

    func statedEnd(on page: Page) -> StatedEnd? {
        guard !statesAnEstimate else { return nil }
        if let path = options.totalPagesPath, let pages = page.values[path]?.statedCount { return .pages(pages) }
        return options.totalItemsPath.flatMap { page.values[$0]?.statedCount }.flatMap { $0 < page.itemCount ? nil : .items($0) }
    }

    func expectedPageCount(after first: Page) -> Int? {
        if let path = options.totalPagesPath, let pages = first.values[path]?.statedCount { return pages }
        guard let path = options.totalItemsPath, let total = first.values[path]?.statedCount, first.itemCount > 0 else { return nil }
        // The first page's size is the page size; a ceiling division that cannot overflow.
        return total / first.itemCount + (total % first.itemCount == 0 ? 0 : 1)
    }
}
