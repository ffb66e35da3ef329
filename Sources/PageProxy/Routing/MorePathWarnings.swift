import PageProxyCore
import PageProxyServer
import Synchronization

/// Tells the log, once per route, that a page of a walk had no flag at the route's `morePath` (absent, or a value
/// that is no boolean: an array, a URL, a word): such a walk goes on by its next link or cursor alone, one request
/// more at the end, and nothing else would say so (retest19 F4: a misspelt `morePath` passed check-config).
/// Shared by every request (`AggregateResponder`); one warning a route for the life of the process, not one a request.
final class MorePathWarnings: Sendable {
    /// Told the route, the path and what the page held there (`"absent"`, `an array`), once per route.
    private let warn: @Sendable (_ route: String, _ path: JSONPath, _ found: String) -> Void
    /// The routes warned about.
    private let warned = Mutex<Set<String>>([])

    init(warn: @escaping @Sendable (_ route: String, _ path: JSONPath, _ found: String) -> Void) {
        self.warn = warn
    }

    /// Warnings written to `logger` at `warning`.
    convenience init(logger: Logger) {
        self.init { route, path, found in
            logger.log(.warning, "a page holds no true or false at the route's morePath: its walks go on by the next link or cursor alone "
                + "(one request more at the end); check the member's name and that it is the flag beside the items", [
                ("route", .string(route)), ("more_path", .string(path.description)), ("found", .string(found)),
            ])
        }
    }

    /// Warns nowhere (tests and `fetch`'s default).
    static let silent = MorePathWarnings { _, _, _ in }

    /// What the page holds at `path`, when it is no flag; nil for a flag (`true`, `false`, `"false"`, `0`: `JSONValue.flag`).
    static func problem(at path: JSONPath, of page: Page) -> String? {
        guard let value = page.values[path] else { return "absent" }
        return value.flag == nil ? value.shortDescription : nil
    }

    /// `strategy`, watching each page's `morePath` when the route's scheme names one; else `strategy` itself.
    func watching(_ strategy: any PaginationStrategy, of scheme: PaginationScheme, route: String) -> any PaginationStrategy {
        guard let path = scheme.morePath else { return strategy }
        return MorePathWatchingStrategy(base: strategy, path: path, route: route, warnings: self)
    }

    /// Warns about `route` unless it was warned about already.
    fileprivate func note(_ route: String, path: JSONPath, found: String) {
        guard warned.withLock({ $0.insert(route).inserted }) else { return }
        warn(route, path, found)
    }
}

extension PaginationScheme {
    /// The flag by which a page says whether more follow (`next-url`, `cursor`); nil for the other schemes.
    var morePath: JSONPath? {
        switch self {
        case .nextURLInBody(let options): options.morePath
        case .cursorInBody(let options): options.morePath
        default: nil
        }
    }
}

/// A route's strategy, unchanged, that checks each page's `morePath` as the walk asks it for the next page.
private struct MorePathWatchingStrategy: PaginationStrategy {
    let base: any PaginationStrategy
    let path: JSONPath
    let route: String
    let warnings: MorePathWarnings

    private func check(_ page: Page) {
        guard let found = MorePathWarnings.problem(at: path, of: page) else { return }
        warnings.note(route, path: path, found: found)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        check(page)
        return try base.next(after: page)
    }

    func next(after page: Page, firstPageItemCount: Int) throws(PaginationError) -> NextPages {
        check(page)
        return try base.next(after: page, firstPageItemCount: firstPageItemCount)
    }

    func next(after page: Page, walkStartedAt first: PageURL) throws(PaginationError) -> NextPages? {
        guard let next = try base.next(after: page, walkStartedAt: first) else { return nil }
        check(page)
        return next
    }

    var valuePaths: [JSONPath] { base.valuePaths }
    func firstPage(from url: PageURL) -> PageURL { base.firstPage(from: url) }
    func mayRepeatPastEnd(after page: Page) -> Bool { base.mayRepeatPastEnd(after: page) }
    func pageFarPast(_ page: Page, by pages: Int) -> PageURL? { base.pageFarPast(page, by: pages) }
    func listFirstPage(before url: PageURL) -> PageURL? { base.listFirstPage(before: url) }
    func endStatusEndsFrom(_ pages: NumberedPages, after page: Page) -> Int? { base.endStatusEndsFrom(pages, after: page) }
    var lookahead: Int { base.lookahead }
    func guessNext(after url: PageURL) -> PageURL? { base.guessNext(after: url) }
    var endStatuses: Set<Int> { base.endStatuses }
    func expectedPageCount(after first: Page) -> Int? { base.expectedPageCount(after: first) }
    var statesEachEnd: Bool { base.statesEachEnd }
    var statesAnEstimate: Bool { base.statesAnEstimate }
    var followsUpstream: Bool { base.followsUpstream }
    var wayOnHeader: String? { base.wayOnHeader }
    func statedEnd(on page: Page) -> StatedEnd? { base.statedEnd(on: page) }
    func pageAfterStatedEnd(_ page: Page, fullAt: Int?) -> PageURL? { base.pageAfterStatedEnd(page, fullAt: fullAt) }
    func secondPageMayRepeat(afterFirst page: Page) -> Int? { base.secondPageMayRepeat(afterFirst: page) }
    func secondPageAgain(_ second: Page, firstPage: PageURL, firstPageItemCount: Int) -> PageURL? {
        base.secondPageAgain(second, firstPage: firstPage, firstPageItemCount: firstPageItemCount)
    }
    func next(after page: Page, steppingBy step: Int, ownSize: Bool) throws(PaginationError) -> NextPages? {
        check(page)
        return try base.next(after: page, steppingBy: step, ownSize: ownSize)
    }
    func sizeAsked(by url: PageURL) -> Int? { base.sizeAsked(by: url) }
    var positionParameters: [String] { base.positionParameters }
    var filtersPages: Bool { base.filtersPages }
    func isShortOfSizeAsked(_ page: Page) -> Bool { base.isShortOfSizeAsked(page) }
    func itemsPerNumberedPage(_ pages: NumberedPages, after page: Page) -> NumberedPageSize? { base.itemsPerNumberedPage(pages, after: page) }
    func checkNumbered(_ page: Page) throws(PaginationError) { try base.checkNumbered(page) }
}
