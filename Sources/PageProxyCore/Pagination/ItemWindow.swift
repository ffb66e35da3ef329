/// `_offset=N&_limit=M`: items N … N+M−1 of a walk, whatever the upstream's scheme (DESIGN.md "Callers may also ask
/// for less": an infinitely scrolling client pages through any upstream with one scheme).
///
/// Only the pages the window needs are walked. A numbered scheme (page number, offset) whose page size is known jumps
/// straight to the page that holds item N, unless the client's query already chose a page or an offset; other
/// schemes can only walk from the first page (through the cache where it holds the pages). A window past the end is
/// empty, never an error.
public struct ItemWindow: Sendable, Equatable {
    /// The index of the first item wanted, from 0.
    public let offset: Int
    /// How many items are wanted, at least 1.
    public let limit: Int

    /// A window of `limit` items from `offset`; a negative offset is read as 0 and a limit below 1 as 1.
    public init(offset: Int, limit: Int) {
        self.offset = max(0, offset)
        self.limit = max(1, limit)
    }

    /// One past the last item of the window, saturating.
    public var end: Int {
        let (end, overflow) = offset.addingReportingOverflow(limit)
        return overflow ? Int.max : end
    }

    /// How a walk serves a window.
    package struct Plan: Sendable, Equatable {
        /// The URL the walk starts from: the route's, or one numbered to start at the page that holds the window.
        package var base: PageURL
        /// The item index (from 0) of the first item of the first page walked: 0 unless the walk jumped.
        package var firstItem: Int
        /// How many pages the window spans from where the walk starts, when the page size is known.
        package var pageLimit: Int?
        /// How many items the walk hands out from where it starts: those before the window and the window's own.
        package var itemLimit: Int
        /// Items of the walk to drop before the window starts.
        package var skip: Int

        init(base: PageURL, firstItem: Int, pageSize: Int?, window: ItemWindow) {
            self.base = base
            self.firstItem = firstItem
            skip = window.offset - firstItem
            let (items, overflow) = skip.addingReportingOverflow(window.limit)
            itemLimit = overflow ? Int.max : items
            // Ceiling division on positive numbers; a huge window saturates and the route's maxPages decides.
            pageLimit = pageSize.map { size in itemLimit / size + (itemLimit % size == 0 ? 0 : 1) }
        }
    }

    /// The plan for walking `scheme` (nil for an auto route: it walks from the start) from `base`.
    package func plan(scheme: PaginationScheme?, base: PageURL) -> Plan {
        switch scheme {
        case .pageNumber(let options)?:
            let (size, trusted) = AskedPageSize.of(base, parameter: options.sizeParameter, route: options.pageSize)
            // A size past the route's may be past the upstream's cap: walked from the first page (`AskedPageSize`).
            guard trusted else { return Plan(base: base, firstItem: 0, pageSize: nil, window: self) }
            guard let size, base.queryValue(options.pageParameter) == nil else {
                return Plan(base: base, firstItem: 0, pageSize: size, window: self)
            }
            let pages = offset / size
            let (page, overflow) = options.firstPage.addingReportingOverflow(pages)
            guard !overflow else { return Plan(base: base, firstItem: 0, pageSize: size, window: self) }
            let jumped = base.settingQueryValue(String(page), for: options.pageParameter)
                .defaultingQueryValue(String(size), for: options.sizeParameter)
            return Plan(base: jumped, firstItem: pages * size, pageSize: size, window: self)
        case .offset(let options)?:
            let (size, trusted) = AskedPageSize.of(base, parameter: options.limitParameter, route: options.limit)
            guard trusted else { return Plan(base: base, firstItem: 0, pageSize: nil, window: self) }
            guard let size, base.queryValue(options.offsetParameter) == nil else {
                return Plan(base: base, firstItem: 0, pageSize: size, window: self)
            }
            // Aligned on the page size, so that windows of any size share the cached pages of one walk.
            let first = offset / size * size
            let jumped = base.settingQueryValue(String(first), for: options.offsetParameter)
                .defaultingQueryValue(String(size), for: options.limitParameter)
            return Plan(base: jumped, firstItem: first, pageSize: size, window: self)
        case .linkHeader(let options)?:
            return Plan(base: base, firstItem: 0, pageSize: Self.size(base.integerQueryValue(options.sizeParameter) ?? options.pageSize), window: self)
        case .nextPageHeader(let options)?:
            return Plan(base: base, firstItem: 0, pageSize: Self.size(base.integerQueryValue(options.sizeParameter) ?? options.pageSize), window: self)
        case .cursorInBody(let options)?:
            return Plan(base: base, firstItem: 0, pageSize: Self.size(base.integerQueryValue(options.sizeParameter) ?? options.pageSize), window: self)
        case .hasMore(let options)?:
            return Plan(base: base, firstItem: 0, pageSize: Self.size(base.integerQueryValue(options.sizeParameter) ?? options.pageSize), window: self)
        case .nextURLInBody?, nil:
            return Plan(base: base, firstItem: 0, pageSize: nil, window: self)
        }
    }

    private static func size(_ value: Int?) -> Int? {
        value.flatMap { $0 >= 1 ? $0 : nil }
    }
}

/// Drops the items of a walk that come before its window, page by page.
package struct ItemWindowCut: Sendable {
    private var remaining: Int

    package init(skip: Int) {
        remaining = max(0, skip)
    }

    /// Removes from the front of `page` the items still to skip.
    package mutating func apply(to page: inout Page) {
        guard remaining > 0 else { return }
        let dropped = min(remaining, page.itemCount)
        page.items.removeFirst(dropped)
        remaining -= dropped
    }
}

extension ItemWindow.Plan {
    /// Whether the walk starts past the first page (a numbered jump).
    package var jumped: Bool { firstItem > 0 }

    /// For a jump, the statuses that on the page jumped to mean "past the last page" (DRF answers 404 "Invalid
    /// page."): the window is then empty, never an error. Empty when the walk did not jump.
    package func endStatuses(of scheme: PaginationScheme?) -> Set<Int> {
        guard jumped else { return [] }
        switch scheme {
        case .pageNumber(let options)?: return options.endStatuses
        case .offset(let options)?: return options.endStatuses
        default: return []
        }
    }

    /// A page with no items at `itemsPath` (`[]`, `{"results":[]}`, `{"data":{"items":[]}}`), standing for a page
    /// past the end; nil for a path through an array index, which no small body can stand for, or a key that would
    /// need escapes.
    package static func emptyPage(itemsPath: JSONPath) -> [UInt8]? {
        var text = "[]"
        for component in itemsPath.components.reversed() {
            guard case .key(let key) = component else { return nil }
            // Items paths come from the config; one that would need escapes gets no stand-in.
            guard !key.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }) else { return nil }
            text = "{\"" + key + "\":" + text + "}"
        }
        return Array(text.utf8)
    }
}
