/// The slice of the dataset one request asks for.
struct MockWindow: Sendable, Equatable {
    /// 0-based index of the first item.
    var offset: Int
    /// Page size (after capping).
    var size: Int
    /// Items in the dataset.
    var total: Int
    /// The 1-based page number for page-number services; `offset / size + 1` otherwise.
    var page: Int

    init(offset: Int, size: Int, total: Int, page: Int? = nil) {
        self.offset = offset
        self.size = size
        self.total = total
        self.page = page ?? (offset / size + 1)
    }

    /// A window for page `page` (1-based) of `size` items; huge page numbers don't overflow.
    init(page: Int, size: Int, total: Int) {
        let (product, overflow) = (page - 1).multipliedReportingOverflow(by: size)
        self.init(offset: overflow ? Int.max : product, size: size, total: total, page: page)
    }

    /// The page index used to match faults (`mock_fault=kind@K`).
    var pageIndex: Int { page }

    /// Number of pages: at least 1, even for an empty dataset.
    var pageCount: Int { max(1, (total + size - 1) / size) }

    /// Items in this window.
    var count: Int { offset >= total ? 0 : min(size, total - offset) }

    /// True when no items follow this window.
    var isLast: Bool { offset >= total || total - offset <= size }

    /// `[` + this window's items + `]`.
    var itemsJSON: [UInt8] { MockDataset.page(offset: offset, count: count, total: total) }
}
