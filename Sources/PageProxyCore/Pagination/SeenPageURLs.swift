/// Every page URL a walk has requested or will, the first page's included: the loop guard's memory. It keeps a digest
/// of each URL, not the URL (attack5 F4: 64 KB cursors kept for the whole walk), and the first page's joins only when
/// the set is first used: a walk of one page never needs it.
struct SeenPageURLs {
    private let first: PageURL
    private var digests: Set<PageURLDigest> = []

    init(first: PageURL) {
        self.first = first
    }

    /// Whether `url` is a page URL of the walk already.
    mutating func contains(_ url: PageURL) -> Bool {
        seedWithFirst()
        return digests.contains(PageURLDigest(url))
    }

    /// Enters `url`; false when it was one already. One hash of the URL, not two (issue 13, eighth pass: `contains`
    /// then `insert` were ~5 % of a walk through the cache).
    mutating func insert(_ url: PageURL) -> Bool {
        seedWithFirst()
        return digests.insert(PageURLDigest(url)).inserted
    }

    private mutating func seedWithFirst() {
        if digests.isEmpty { digests.insert(PageURLDigest(first)) }
    }
}
