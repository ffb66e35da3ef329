/// The page URLs a walk has built, by page index, keeping only those it may still need: from the next page to hand out
/// on, and the last one built (a lookahead guess is numbered from it).
///
/// Why (attack5 F4): the walk kept every URL it had built for its whole life, so its memory grew with pages × URL
/// length (64 KB cursors: 64 MB for a walk of the default 1000 pages), not with page size × concurrency as DESIGN.md
/// says. URLs before `forget(below:)`'s index are dropped in batches (when they are at least half of what is kept),
/// so that dropping costs O(1) a page: at most 2 × (URLs past the index) + 1 are kept.
struct PageURLWindow {
    /// The URLs from index `start` on.
    private var kept: [PageURL]
    /// The index of `kept[0]`.
    private var start = 0

    init(first: PageURL) {
        kept = [first]
    }

    /// How many URLs have been built in all, the forgotten ones included: the index the next one gets.
    var count: Int { start + kept.count }

    /// The URL at `index`, which must not be forgotten (at least the index given to `forget(below:)`, or the last).
    subscript(index: Int) -> PageURL {
        precondition(index >= start && index < count, "page URL \(index) is forgotten or not built")
        return kept[index - start]
    }

    /// The last URL built.
    var last: PageURL? { kept.last }

    mutating func append(_ url: PageURL) {
        kept.append(url)
    }

    /// The URLs below `index` will not be asked for again; the last one built is kept whatever `index` says.
    mutating func forget(below index: Int) {
        let drop = min(index, count - 1) - start
        guard drop > 0, drop * 2 >= kept.count else { return }
        kept.removeFirst(drop)
        start += drop
    }

    /// How many URLs are kept (tests: the window's memory is bounded whatever the page count).
    var keptCount: Int { kept.count }

    /// The bytes of the URLs kept, as text (tests and the memory bound's account).
    var keptBytes: Int { kept.reduce(0) { $0 + $1.descriptionByteCount } }
}
