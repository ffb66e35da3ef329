/// XXH64 of each item of one page as it arrived, in order, worked out once for every check that compares a page's
/// items with another's (`FirstPageOverlap`, `SteppedPageOverlap`, `PastShortPageRepeat`, `FilteredWindowStep`).
/// Each of them hashed the page itself, the second page twice, and built a set of the hashes each (closing-39).
struct ItemHashes: Equatable {
    /// In the page's order.
    let values: [UInt64]
    /// Whether no two of the items are alike (a series with no id may hold equal items).
    let areUnique: Bool

    init(_ values: [UInt64]) {
        self.values = values
        areUnique = Set(values).count == values.count
    }

    /// `page`'s items (its body in memory).
    init(_ page: Page) {
        self.init(page.items.map { XXHash64.hash(page.body[$0.range]) })
    }
}

/// A page's `ItemHashes`, worked out when a check first asks for them: a walk that compares no items hashes none.
struct PageItemHashes {
    /// The page's items as it arrived.
    private let items: [JSONItem]
    private var worked: ItemHashes?

    init(arrived page: Page) {
        items = page.items
    }

    /// The hashes of the page's items as it arrived, from `page`'s body: the page as it arrived, or as the walk keeps it
    /// (its first items dropped, or its body read from its file: the same bytes). Nil while no body was in memory.
    mutating func of(_ page: Page) -> ItemHashes? {
        if let worked { return worked }
        guard page.bodyInFile == nil else { return nil }
        let hashes = ItemHashes(items.map { XXHash64.hash(page.body[$0.range]) })
        worked = hashes
        return hashes
    }
}
