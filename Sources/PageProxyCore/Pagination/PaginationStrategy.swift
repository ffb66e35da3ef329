import Foundation

/// What a pagination scheme learned from a page about the pages after it.
package enum NextPages: Sendable, Equatable {
    /// This was the last page.
    case none
    /// One more page, known only now (next link, cursor): pages are fetched one after another.
    case one(PageURL)
    /// Every remaining page, known ahead (a total, a `last` link): they can be fetched concurrently. A description
    /// rather than a list, so that the walk checks the count against its page limit before building any URL.
    case all(NumberedPages)

    /// Whether no page follows (`.none`, or a numbering of no pages).
    var isNone: Bool {
        switch self {
        case .none: true
        case .one: false
        case .all(let pages): pages.count == 0
        }
    }
}

/// The rules of one pagination scheme: the first page's URL, the JSON values it needs, and what follows a page.
package protocol PaginationStrategy: Sendable {
    /// JSON paths whose values the scheme reads from every page body.
    var valuePaths: [JSONPath] { get }
    /// The first page's URL from the route's base URL and the client's query.
    func firstPage(from base: PageURL) -> PageURL
    /// The pages after `page`, which is the last page known so far.
    func next(after page: Page) throws(PaginationError) -> NextPages
    /// `next(after:)` told how many items the walk's first page held: a size the upstream may cap is measured by it
    /// (`PageNumberStrategy`, review14 F13). 0 once the walk showed the first page filtered, not capped (`FirstPageOverlap`).
    func next(after page: Page, firstPageItemCount: Int) throws(PaginationError) -> NextPages
    /// The pages after `page` for a scheme that builds them on the walk's first page's URL, `first` (a cursor object's
    /// members, `CursorInBody.cursorObjectPath`); nil for every other scheme, whose `next(after:)` builds on the page's.
    func next(after page: Page, walkStartedAt first: PageURL) throws(PaginationError) -> NextPages?
    /// Whether the upstream may answer the page after `page`, past the list's end, with `page` again: the walk then
    /// compares them, and ends at such a repeat (`PastEndRepeat`).
    func mayRepeatPastEnd(after page: Page) -> Bool
    /// The page `pages` pages past `page`, which no walk from `page` reaches under a `maxPages` of `pages`: asked after
    /// a page that repeated the one before (`PastEndClampCheck`), the same items there show an upstream that answers
    /// every page past its end with its last. Nil for a scheme that numbers no pages so.
    func pageFarPast(_ page: Page, by pages: Int) -> PageURL?
    /// The list's first page, when a walk from `url` (a window's jump) starts past it: asked after the walk's second page
    /// held its first page's items again, the same items there show an upstream that does not read the page number
    /// (`IgnoredPageNumber`), other items one that answered its last page again past its end (`PastEndClampCheck`).
    func listFirstPage(before url: PageURL) -> PageURL?
    /// The index among `pages`, numbered ahead after `page`, from which one of `endStatuses` ends the walk quietly (the
    /// list's end, short of the total they were numbered from); nil when no numbered page may answer one.
    func endStatusEndsFrom(_ pages: NumberedPages, after page: Page) -> Int?
    /// Whether the route says the upstream hides items from its pages after cutting them (`filteredPages`): the walk
    /// takes the list as filtered from its first page on.
    var filtersPages: Bool { get }
    /// How many pages past the last known one may be fetched before it is known whether they exist.
    var lookahead: Int { get }
    /// The page that probably follows `url` when no total is known (page number + 1, offset + limit).
    func guessNext(after url: PageURL) -> PageURL?
    /// Statuses that, on a page known only from the one before (no total), mean "past the last page".
    var endStatuses: Set<Int> { get }
    /// How many pages the walk will have in all, learned from the first page, when the scheme knows it although it
    /// cannot name the pages ahead (a next URL with a total).
    func expectedPageCount(after first: Page) -> Int?
    /// Whether every page says whether another follows (a next link, null or absent on the last; a `Link` with no
    /// `rel="next"`), so that a page saying none ends the list even among pages a total numbered ahead.
    var statesEachEnd: Bool { get }
    /// Whether the total this scheme numbers pages from is an estimate (`totalIsEstimate`, a name such as
    /// `estimatedTotalHits`): never compared, but a head insert still shows in the items (`StatedEndCheck`).
    var statesAnEstimate: Bool { get }
    /// Whether the next page's URL comes from the upstream (a link, a cursor, a next-page header, the last item's id)
    /// rather than from PageProxy's own numbering: such a page that holds the page before's items again means the
    /// upstream ignored what it sent (`RepeatedPageGuard`).
    var followsUpstream: Bool { get }
    /// The response header the next page is read from (`Link`, a next-page header), part of a page's way on
    /// (`RepeatedPageGuard`); nil for a scheme that reads it from the body.
    var wayOnHeader: String? { get }
    /// The list's end as `page` states it on its own: a total of items or of pages, or the number its `last` link
    /// names; nil when it states none (or one smaller than the items it holds, which no walk believes). The walk
    /// compares every page it numbered with the end it numbered them from (`StatedEndCheck`, review17 B5). An estimated
    /// total (`totalIsEstimate`, or a name that says so) states none.
    func statedEnd(on page: Page) -> StatedEnd?
    /// The page after `page`, the last one a stated total (or page count) numbered, when `page` is full: a total lower
    /// than the truth (PostgREST's estimated counts) ended the walk with the items past it never asked for (review17
    /// B10). Nil when `page` is short, which ends the list as its total said, and for schemes whose pages each state
    /// their own end (they link on instead). An empty page there ends the walk, and so does a 404, 410 or 416.
    /// A page is full when it holds the size asked, or `fullAt` items when given: the upstream's cap, as the walk's
    /// first page held it (for the pages after it), or as a window's earlier walk saw it served
    /// (`PageWalker.Options.servedPageSize`, for the first).
    func pageAfterStatedEnd(_ page: Page, fullAt: Int?) -> PageURL?
    /// How many of its last items the walk's second page may hold again, when the first, `page`, is short of the size
    /// asked under a total that says more (or none) and the second is asked right after its items (an offset stepped by what
    /// was served, to learn whether the upstream caps the size): an upstream that filtered the first page after cutting
    /// it (an item hidden from this caller) serves them again there (attack14 M6). Nil when no page may overlap.
    func secondPageMayRepeat(afterFirst page: Page) -> Int?
    /// The walk's second page asked again with the size the first asked for, when the second, asked for as many items
    /// as the first served, lay inside the first page's window (`FirstPageOverlap`: the first hid more than half of
    /// it, or it is empty; review26 H1, fix21a); nil when the scheme asks none.
    func secondPageAgain(_ second: Page, firstPage: PageURL, firstPageItemCount: Int) -> PageURL?
    /// The page after `page`, `step` positions on with the size its URL asks, or none at the list's end: an offset walk
    /// stepped by what its pages show the upstream's window holds (`FilteredWindowStep`; `ownSize`: the upstream serves
    /// more a page than that size, and its pages are not held to it); nil for a scheme that steps no other way.
    func next(after page: Page, steppingBy step: Int, ownSize: Bool) throws(PaginationError) -> NextPages?
    /// The size `url` asks for (an offset's `limit`); nil for a scheme that asks none.
    func sizeAsked(by url: PageURL) -> Int?
    /// The query parameters that say where a page is in the list (an offset and a limit), for `FilteringLists`.
    var positionParameters: [String] { get }
    /// Whether `page` holds fewer items than the size its URL asks (an offset's `limit`): on a list that showed a
    /// filter the walk goes on past such a page, and compares the page after it with it (`PastShortPageRepeat`).
    /// False for a scheme that asks no size.
    func isShortOfSizeAsked(_ page: Page) -> Bool
    /// How many items each of `pages`, numbered ahead after `page`, holds while the list is the one `page` was cut from
    /// (`NumberedPageSize`, attack16 M3); nil when the scheme checks none.
    func itemsPerNumberedPage(_ pages: NumberedPages, after page: Page) -> NumberedPageSize?
    /// Fails for a page the scheme numbered ahead that breaks a rule `next` checks (an offset page longer than its
    /// limit): the walk reads such a page's `next` for its links alone, ignoring unreadable ones (review22 L2).
    func checkNumbered(_ page: Page) throws(PaginationError)
}

extension PaginationStrategy {
    package func next(after page: Page, firstPageItemCount: Int) throws(PaginationError) -> NextPages { try next(after: page) }
    package func next(after page: Page, walkStartedAt first: PageURL) throws(PaginationError) -> NextPages? { nil }
    package func mayRepeatPastEnd(after page: Page) -> Bool { false }
    package func pageFarPast(_ page: Page, by pages: Int) -> PageURL? { nil }
    package func listFirstPage(before url: PageURL) -> PageURL? { nil }
    package func endStatusEndsFrom(_ pages: NumberedPages, after page: Page) -> Int? { nil }
    package var lookahead: Int { 0 }
    package var filtersPages: Bool { false }
    package func guessNext(after url: PageURL) -> PageURL? { nil }
    package var endStatuses: Set<Int> { [] }
    package func expectedPageCount(after first: Page) -> Int? { nil }
    package var statesEachEnd: Bool { false }
    package var statesAnEstimate: Bool { false }
    package var followsUpstream: Bool { false }
    package var wayOnHeader: String? { nil }
    package func statedEnd(on page: Page) -> StatedEnd? { nil }
    package func pageAfterStatedEnd(_ page: Page, fullAt: Int?) -> PageURL? { nil }
    package func secondPageMayRepeat(afterFirst page: Page) -> Int? { nil }
    package func secondPageAgain(_ second: Page, firstPage: PageURL, firstPageItemCount: Int) -> PageURL? { nil }
    package func next(after page: Page, steppingBy step: Int, ownSize: Bool) throws(PaginationError) -> NextPages? { nil }
    package func sizeAsked(by url: PageURL) -> Int? { nil }
    package var positionParameters: [String] { [] }
    package func isShortOfSizeAsked(_ page: Page) -> Bool { false }
    package func itemsPerNumberedPage(_ pages: NumberedPages, after page: Page) -> NumberedPageSize? { nil }
    package func checkNumbered(_ page: Page) throws(PaginationError) {}
}

extension PaginationScheme {
    /// The strategy that walks this scheme.
    package func makeStrategy() -> any PaginationStrategy {
        switch self {
        case .pageNumber(let options): PageNumberStrategy(options: options)
        case .offset(let options): OffsetStrategy(options: options)
        case .linkHeader(let options): LinkHeaderStrategy(options: options)
        case .nextPageHeader(let options): NextPageHeaderStrategy(options: options)
        case .nextURLInBody(let options): NextURLInBodyStrategy(options: options)
        case .cursorInBody(let options): CursorInBodyStrategy(options: options)
        case .hasMore(let options): HasMoreStrategy(options: options)
        }
    }
}

extension PageURL {
    /// This URL with another path, the query kept.
    package func replacingPath(_ path: String) -> PageURL {
        PageURL(scheme: scheme, host: host, port: port, path: path, query: query)
    }

    /// Sets `name` to `value` unless the client already chose a value for it.
    package func defaultingQueryValue(_ value: String?, for name: String?) -> PageURL {
        guard let name, let value, queryValue(name) == nil else { return self }
        return settingQueryValue(value, for: name)
    }

    /// The integer value of query parameter `name`, as the client or a link wrote it: any `Int`, negative included.
    package func integerQueryValue(_ name: String?) -> Int? {
        name.flatMap { QueryBytes.integerValue(of: $0, in: query) }
    }

    /// The URL with the integer parameter `name` moved on by `step` (from `start` when the URL does not name it): a
    /// lookahead's guess at the next page. Nil when the number would overflow.
    package func advancingQueryValue(_ name: String, by step: Int, from start: Int) -> PageURL? {
        let (next, overflow) = (integerQueryValue(name) ?? start).addingReportingOverflow(step)
        return overflow ? nil : settingQueryValue(String(next), for: name)
    }
}

extension JSONValue {
    /// A non-negative integer from a JSON number or a numeric string (`"42"`): totals are written both ways.
    package var integer: Int? {
        switch self {
        case .number(let text), .string(let text): Int(text).flatMap { $0 >= 0 ? $0 : nil }
        default: nil
        }
    }

    /// A count the upstream states (a total of items or pages): a non-negative whole number in any JSON spelling
    /// (`1000`, `1e3`, `"1000"`), and `Int.max` for one past `Int`'s range (attack5 m4: `1e30` or 20 digits were read
    /// as no total, so the walk ran on to `maxPages` or its deadline, while `Int.max` itself was refused at once). A
    /// count that large is past any route's `maxPages`, so the walk is refused at the first page (`too_many_pages`).
    package var statedCount: Int? {
        switch self {
        case .number(let text): integer ?? Self.wholeNumber(text)
        case .string(let text): integer ?? StatedCount.digitsPastInt(Substring(text))
        default: nil
        }
    }

    /// A JSON number's text (valid JSON, as the scanner checked it) that `Int` does not read, as a count: digits past
    /// `Int`'s range, or a whole value with an exponent or a fraction (`1e3`, `1000.0`, `1e400`); nil when negative
    /// or fractional. `Double` rounds only values far past any page limit; it is not for strings, where it would
    /// also read "inf", "nan" and hexadecimal.
    private static func wholeNumber(_ text: String) -> Int? {
        if let past = StatedCount.digitsPastInt(Substring(text)) { return past }
        guard let value = Double(text), value >= 0, value.rounded(.towardZero) == value else { return nil }
        return value < 0x1p63 ? Int(value) : Int.max
    }

    /// A non-empty string, or nil for null, an empty string or a non-string.
    package var nonEmptyString: String? {
        if case .string(let text) = self, !text.isEmpty { return text }
        return nil
    }
}

extension HTTPHeaders {
    /// A non-negative integer header value.
    package func integer(_ name: String?) -> Int? {
        name.flatMap { self[$0] }.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// A count header value (`X-Total-Count`, `X-Total-Pages`): as `integer`, and `Int.max` for digits past `Int`'s
    /// range (as `JSONValue.statedCount`); for `Content-Range`, the complete length it states (`ContentRange`).
    package func statedCount(_ name: String?) -> Int? {
        guard let name, let value = self[name] else { return nil }
        if Self.namesEqual(name, ContentRange.headerName) { return ContentRange.completeLength(value) }
        return integer(name) ?? StatedCount.digitsPastInt(Substring(value.trimmingCharacters(in: .whitespaces)))
    }
}

/// A count an upstream states (a total, a last page's number) past `Int`'s range: far past any route's `maxPages`, it
/// saturates, so the walk refuses it at the first page as it refuses `Int.max` (attack5 m4: it was read as no count).
enum StatedCount {
    /// `Int.max` for ASCII digits (and nothing else) past `Int`'s range; nil for anything else.
    static func digitsPastInt(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), Int(text) == nil else { return nil }
        return Int.max
    }
}

extension PaginationStrategy {
    /// `pageAfterStatedEnd(_:fullAt:)` with the cap the walk's first page measured, `firstPageItemCount`, for a page
    /// after the first.
    package func pageAfterStatedEnd(_ page: Page, firstPageItemCount: Int) -> PageURL? {
        pageAfterStatedEnd(page, fullAt: page.number > 1 ? firstPageItemCount : nil)
    }
}
