/// The fetches an `_explain` account lists, in memory bounded whatever the page count: the first `atEachEnd` recorded
/// and the last `atEachEnd`, in full; those between are only counted (`Omitted`). attack7: every fetch of a walk was
/// kept, URL and all, ~7 KB a page with ~1 KB URLs, so a 10,000-page `_explain` held tens of megabytes.
package struct KeptFetches: Sendable {
    /// What the fetches left out between the first and the last kept add up to.
    package struct Omitted: Sendable, Equatable {
        package var count = 0
        /// The lowest and highest page number among them.
        package var pages: ClosedRange<Int>?
        package var bytes = 0
        package var retries = 0
        /// Those that got no answer.
        package var failed = 0

        mutating func add(_ fetch: WalkRecord.Fetch) {
            count += 1
            pages = pages.map { min($0.lowerBound, fetch.number)...max($0.upperBound, fetch.number) } ?? fetch.number...fetch.number
            bytes += fetch.bytes
            retries += fetch.retries
            if fetch.status == nil { failed += 1 }
        }
    }

    /// How many fetches are kept at each end by default: 1,000 in all, ~1 MB at most with URLs at `keptURLBytes`.
    package static let defaultAtEachEnd = 500

    private let atEachEnd: Int
    private var first: [WalkRecord.Fetch] = []
    /// The latest `atEachEnd` past `first`, as a ring: once full, `next` is the oldest, the next to be left out.
    private var last: [WalkRecord.Fetch] = []
    private var next = 0
    private(set) var omitted = Omitted()

    init(atEachEnd: Int = defaultAtEachEnd) {
        self.atEachEnd = max(1, atEachEnd)
    }

    /// Every fetch kept, in the order they were recorded.
    var all: [WalkRecord.Fetch] { first + last[next...] + last[..<next] }

    mutating func append(_ fetch: WalkRecord.Fetch) {
        if first.count < atEachEnd {
            first.append(fetch)
        } else if last.count < atEachEnd {
            last.append(fetch)
        } else {
            omitted.add(last[next])
            last[next] = fetch
            next = (next + 1) % atEachEnd
        }
    }

    /// Sets the items taken from the latest kept fetch that `matches`; false when none does.
    mutating func setItems(_ items: Int, ofLatest matches: (WalkRecord.Fetch) -> Bool) -> Bool {
        // The ring from its newest back to its oldest, then the first ones from the end.
        for step in 0..<last.count {
            let index = (next - 1 - step + 2 * last.count) % last.count
            if matches(last[index]) {
                last[index].items = items
                return true
            }
        }
        guard let index = first.lastIndex(where: matches) else { return false }
        first[index].items = items
        return true
    }
}
