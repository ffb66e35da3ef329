import Synchronization

/// The offset lists an upstream was seen to filter after cutting its pages (an item hidden from this caller, a row
/// deleted but counted; `PageWalker.checkWindowNotFiltered`), shared by every walk of a process.
///
/// On such a list an offset counts items the answer never holds, so a window cannot jump to one: once a walk showed
/// the filter, a window walked again (`ItemWindow.walkingAgain`) walks from the first page (real18 F2: windows jumped
/// and answered other items than the merged answer's, and a scroll by `rel="next"` got 40 items twice).
package final class FilteringLists: Sendable {
    private let keys = Mutex<Set<PageURL>>([])
    /// A bound on what is kept: a client may vary a query without end.
    private let capacity: Int

    package init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    /// Whether the list `url` pages (whatever the values of `positions`, its offset and limit) was seen filtered.
    package func isFiltered(_ url: PageURL, positions: [String]) -> Bool {
        let key = Self.key(url, positions: positions)
        return keys.withLock { $0.contains(key) }
    }

    /// Records that the list `url` pages is filtered.
    package func learnFiltered(_ url: PageURL, positions: [String]) {
        let key = Self.key(url, positions: positions)
        keys.withLock { keys in
            if keys.count >= capacity, !keys.contains(key) { keys.removeAll(keepingCapacity: true) }
            keys.insert(key)
        }
    }

    /// The list's URL with its position left out.
    private static func key(_ url: PageURL, positions: [String]) -> PageURL {
        positions.reduce(url) { $0.settingQueryValue("0", for: $1) }
    }
}
