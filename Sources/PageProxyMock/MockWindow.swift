/// The slice of the dataset one request asks for.
package struct MockWindow: Sendable, Equatable {
    /// 0-based index of the first item.
    package var offset: Int
    /// Page size (after capping).
    package var size: Int
    /// Items in the dataset.
    package var total: Int
    /// The 1-based page number for page-number services; `offset / size + 1` otherwise.
    package var page: Int
    /// Items whose id is a multiple of this are cut out of the page after it is cut from the list, though the total
    /// still counts them (`mock_hide_every=N`): an upstream that filters a page after paginating it (permissions,
    /// soft-deleted rows), whose pages are short of their limit while more follow (review16 R4).
    package var hidingEvery: Int? = nil
    /// Only items whose id is a multiple of this are left on a page (`mock_show_every=N`): a filter that hides more
    /// than half of every page (review26 H1).
    package var showingEvery: Int? = nil
    /// Items added at the list's head since the first page was served (`mock_head_growth=K` on later pages): counted in
    /// `total`, they shift every item K places on, as a newest-first list does under inserts (review17 B5).
    package var headGrowth = 0
    /// Items with no id whose one value cycles every `period` items (`mock_period=P`: weekdays, hours): pages of that
    /// many items are equal byte for byte though the list goes on (retest14 M1).
    package var period: Int? = nil
    /// The total the page states, when it is not the truth (`mock_count_percent=P`: an estimated count, a `0`).
    package var statedTotal: Int? = nil

    /// The total the page states: `statedTotal`, else the truth.
    package var countStated: Int { statedTotal ?? total }

    package init(offset: Int, size: Int, total: Int, page: Int? = nil) {
        self.offset = offset
        self.size = size
        self.total = total
        self.page = page ?? (offset / size + 1)
    }

    /// A window for page `page` (1-based) of `size` items; huge page numbers don't overflow.
    package init(page: Int, size: Int, total: Int) {
        let (product, overflow) = (page - 1).multipliedReportingOverflow(by: size)
        self.init(offset: overflow ? Int.max : product, size: size, total: total, page: page)
    }

    /// The page index used to match faults (`mock_fault=kind@K`).
    package var pageIndex: Int { page }

    /// Number of pages: at least 1, even for an empty dataset.
    package var pageCount: Int { max(1, (total + size - 1) / size) }

    /// Items in this window.
    package var count: Int { offset >= total ? 0 : min(size, total - offset) }

    /// True when no items follow this window.
    package var isLast: Bool { offset >= total || total - offset <= size }

    /// `[` + this window's items + `]`.
    package var itemsJSON: [UInt8] {
        if let period { return MockDataset.array((offset..<offset + count).map { Array("{\"day\":\($0 % period)}".utf8) }) }
        guard headGrowth > 0 else { return MockDataset.page(offset: offset, count: count, total: total, hidingEvery: hidingEvery, showingEvery: showingEvery) }
        // The new items (ids past the first list's) lie before the first list's, which are shifted on by as many.
        let original = total - headGrowth
        return MockDataset.array(
            (offset..<offset + count).map { $0 < headGrowth ? MockDataset.item(original + headGrowth - 1 - $0) : MockDataset.item($0 - headGrowth) })
    }
}
