/// RFC 8288 `Link` headers: follow `rel="next"`; with `rel="last"` and numbered pages (by the page parameter, or by
/// a plain offset), fan out to every page.
struct LinkHeaderStrategy: PaginationStrategy {
    let options: PaginationScheme.LinkHeader

    var statesEachEnd: Bool { true }

    var followsUpstream: Bool { true }

    var wayOnHeader: String? { "Link" }

    var valuePaths: [JSONPath] { [] }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        let reading = LinkHeaderParser.read(page.headers)
        let links = Self.links(reading.links, of: page)
        guard let nextLink = links.first(where: { $0.relations.contains("next") }) else {
            // A `next` the parser skipped as malformed is no end of the list (review17 L6: the walk ended as complete).
            if Self.namesUnreadableNext(reading.malformed, links) {
                throw .cannotContinue(
                    page: page.number,
                    reason: "its Link field names a next relation that is not a valid link-value (RFC 8288: `<URL>; rel=\"next\"`)")
            }
            return .none
        }
        // Relative to the URL that answered, which a redirect may have moved (`Page.answeredURL`).
        let base = page.answeredURL
        guard let next = base.resolving(nextLink.target) else {
            throw .invalidNextLink(page: page.number, link: nextLink.target)
        }
        // With `last`, and both links numbered by the page parameter, every remaining page is known now. The
        // numbers are the upstream's: NumberedPages counts them without overflow, and the walk checks the count.
        // `last` must be `next` renumbered, as in the offset branch: a per-page token beside the number
        // (`?page=2&after=abc`, `last` `?page=9&after=xyz`) would be sent with page 2's token on every page (review17 L4).
        if let lastLink = links.first(where: { $0.relations.contains("last") }),
            let last = base.resolving(lastLink.target),
            let nextNumber = next.integerQueryValue(options.pageParameter),
            let lastText = last.queryValue(options.pageParameter),
            let lastNumber = last.integerQueryValue(options.pageParameter) ?? StatedCount.digitsPastInt(Substring(lastText)),
            last.origin == next.origin, lastNumber >= nextNumber,
            last.isSamePage(as: next.settingQueryValue(lastText, for: options.pageParameter))
        {
            return .all(NumberedPages(template: next, parameter: options.pageParameter, first: nextNumber, through: lastNumber))
        }
        if let lastLink = links.first(where: { $0.relations.contains("last") }), let pages = offsetPages(page, next: next, lastLink.target) {
            return .all(pages)
        }
        return .one(next)
    }

    /// The link-values about `page` itself (RFC 8288 §3.2: one anchored at another URL is another resource's).
    private static func links(_ links: [LinkHeaderValue], of page: Page) -> [LinkHeaderValue] {
        // Nearly no upstream sends `anchor`: the page's answered URL (a header lookup and a parse) only when one does.
        guard links.contains(where: { $0.parameters["anchor"] != nil }) else { return links }
        let answered = page.answeredURL
        return links.filter { $0.isAbout(page.url, answeredAt: answered) }
    }

    /// Whether a `next` is written so that it cannot be read: a skipped link-value whose text says `rel=…next…` in any
    /// spelling (`<u> rel="next"` with no `;`), or a read one whose `rel` is `'next'`. Called only when no `next` was
    /// read. Only the first `rel` of a read link-value names its relations (RFC 8288 §3.3), so `rel="prev";
    /// rel="next"` and `title="rel=next"` are no next (attack22 item 2: both were a `502` on the last page).
    private static func namesUnreadableNext(_ malformed: [String], _ links: [LinkHeaderValue]) -> Bool {
        malformed.contains { text in
            var rest = text.lowercased()[...]
            while let found = rest.firstRange(of: "rel") {
                rest = rest[found.upperBound...]
                let afterName = rest.drop { $0 == " " || $0 == "\t" }
                guard afterName.first == "=" else { continue }
                if namesNext(afterName.dropFirst().prefix { $0 != "," && $0 != ";" && $0 != "<" }) { return true }
            }
            return false
        } || links.contains { namesNext(Substring(($0.parameters["rel"] ?? "").lowercased())) }
    }

    private static func namesNext(_ relations: Substring) -> Bool {
        relations.split(whereSeparator: { " \t\"'".contains($0) }).contains("next")
    }

    /// drf-link-header-pagination's `LinkHeaderLimitOffsetPagination`: `next` at `offset=100`, `last` at `offset=900`.
    /// When the next link moves one plain offset by the page's size (`PageNumbering.isPlain`) and `last` is that very
    /// link with the offset a whole number of steps on, every page between is known now.
    private func offsetPages(_ page: Page, next: PageURL, _ lastTarget: String) -> NumberedPages? {
        let base = page.answeredURL
        guard let numbering = PageNumbering(from: base, to: next, itemCount: page.itemCount), numbering.step > 1,
            numbering.isPlain(itemCount: page.itemCount, next: next), let last = base.resolving(lastTarget),
            let lastOffset = last.integerQueryValue(numbering.parameter),
            case let (distance, overflow) = lastOffset.subtractingReportingOverflow(numbering.first), !overflow, distance >= 0,
            distance % numbering.step == 0,
            last.isSamePage(as: next.settingQueryValue(String(lastOffset), for: numbering.parameter))
        else { return nil }
        return NumberedPages(template: next, parameter: numbering.parameter, first: numbering.first, through: lastOffset, step: numbering.step)
    }

    /// The page number (or offset) the `last` link names, when it names one by the page parameter.
    func statedEnd(on page: Page) -> StatedEnd? {
        let links = Self.links(LinkHeaderParser.parse(page.headers), of: page)
        guard let lastLink = links.first(where: { $0.relations.contains("last") }), let last = page.answeredURL.resolving(lastLink.target)
        else { return nil }
        return last.integerQueryValue(options.pageParameter).map(StatedEnd.pages)
    }

    var lookahead: Int { options.lookahead }

    /// The page after `url` by its number (the first page has none: it is page 1).
    func guessNext(after url: PageURL) -> PageURL? {
        url.advancingQueryValue(options.pageParameter, by: 1, from: 1)
    }
}
