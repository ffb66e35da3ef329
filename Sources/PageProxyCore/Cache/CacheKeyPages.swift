import Glibc
import Synchronization

/// The cache keys of one plan's pages, by page number, as its walks last worked them out (issue 13, eighth pass).
///
/// Every walk of a plan asks for the same URLs in the same order: a page's key taken from here costs a comparison of
/// its URL, where working it out costs the URL's text, the key's input and the memo's hash of that input (~9 % of a
/// walk through the cache in memory). A key is taken only for the very URL it was worked out for (a walk whose
/// upstream now links elsewhere works out the new page's key and keeps it instead), so it is always the template's
/// key of that URL. Bounded: no page past `capacity` is kept, and all tables together keep at most their budget's
/// limit of keys (past it, pages are keyed as before, each time).
package final class CacheKeyPages: Sendable {
    /// The number of keys all tables of one budget may hold together.
    package final class Budget: Sendable {
        private let used: BoundedCount

        package init(limit: Int) {
            used = BoundedCount(limit: limit)
        }

        package var limit: Int { used.limit }

        /// The budget every plan's table uses unless told otherwise: a URL (at most `maxKeptURLBytes`) and a key a
        /// slot, ~8 MB for URLs of ~100 bytes, ~22 MB at most.
        package static let shared = Budget(limit: 32_768)

        /// How many slots are held now (tests).
        package var inUse: Int { used.count }

        /// Takes `count` slots; false, taking none, when that would pass the limit.
        fileprivate func take(_ count: Int) -> Bool { used.take(count) }

        fileprivate func giveBack(_ count: Int) { used.giveBack(count) }

        /// Whether a slot may be had now (a hint: another table may take it first).
        fileprivate var hasRoom: Bool { used.count < used.limit }
    }

    /// A class, not a struct: taking a slot out of the table under its lock is one retain, not one for each of the
    /// URL's strings and the key's (issue 13, eleventh pass: the copies were ~4 % of a walk through entries in memory).
    fileprivate final class Known: Sendable {
        let url: PageURL
        let key: CacheKey

        init(url: PageURL, key: CacheKey) {
            self.url = url
            self.key = key
        }
    }

    /// A longer URL (an upstream's cursor) is keyed each time, not kept (review8: slots counted, not bytes, so 64 KB
    /// cursors would have kept gigabytes across requests).
    package static let maxKeptURLBytes = 512

    /// The keys kept, by page index (number − 1); nil for a page not keyed yet. Apart from the template, so that a
    /// plan keeps its keys across requests without keeping the headers they digest (loose12: a forwarded
    /// `Authorization` is in the template, and a kept plan holds no client's credential): each request of such a plan
    /// keys with a template of its own fields over the plan's table (`sharingKeys`).
    package final class Table: Sendable {
        package let capacity: Int
        private let budget: Budget
        fileprivate let keys = Mutex<[Known?]>([])

        package init(capacity: Int, budget: Budget = .shared) {
            self.capacity = max(0, capacity)
            self.budget = budget
        }

        deinit {
            budget.giveBack(keys.withLock { $0.count })
        }

        fileprivate func take(_ count: Int) -> Bool { budget.take(count) }

        /// Whether a slot may be had now for a page not kept yet (a hint: another table may take it first).
        fileprivate var hasRoom: Bool { budget.hasRoom }
    }

    package let template: CacheKeyTemplate
    package let table: Table
    package var capacity: Int { table.capacity }
    /// The process's memo of keys (`CacheKeyMemo`), asked only for a key the table will not keep: one it keeps is
    /// found here by its URL, and kept in the memo too it cost a second digest of its input, two holds of the memo's
    /// lock and a slot there (issue 13, twenty-second pass: ~1 µs a page of the first walk after a restart).
    private let memo: CacheKeyMemo?

    /// - Parameter capacity: the most pages kept (a route's `maxPages`).
    package convenience init(template: CacheKeyTemplate, capacity: Int, budget: Budget = .shared, memo: CacheKeyMemo? = .shared) {
        self.init(template: template, table: Table(capacity: capacity, budget: budget), memo: memo)
    }

    /// The keys of `table`, worked out with `template`: the table must only ever be used with templates that digest
    /// the same bytes (those of one plan, whose key holds every header sent).
    package init(template: CacheKeyTemplate, table: Table, memo: CacheKeyMemo? = .shared) {
        self.template = template
        self.table = table
        self.memo = memo
    }

    /// How many page slots are held (tests).
    package var count: Int { table.keys.withLock { $0.count } }

    /// The key of page `number` of a walk, whose URL is `url`: the one kept for it when it was worked out for this very
    /// URL, else worked out now (`template.key(for:)`) and kept.
    package func key(for url: PageURL, number: Int) -> CacheKey {
        let index = number - 1
        guard index >= 0, index < capacity else { return template.key(for: url, memo: memo) }
        // One retain under the lock; a slot is never changed, only replaced, so it is compared after it.
        let (slot, hasSlot) = table.keys.withLock { keys in index < keys.count ? (keys[index], true) : (nil, false) }
        if let slot, Self.sameBytes(slot.url, url) { return slot.key }
        let kept = url.descriptionByteCount <= Self.maxKeptURLBytes && (hasSlot || table.hasRoom)
        let key = template.key(for: url, memo: kept ? nil : memo)
        guard kept else { return key }
        let known = Known(url: url, key: key)
        let dropped = table.keys.withLock { keys -> Known? in
            if index < keys.count {
                defer { keys[index] = known }
                return keys[index]
            }
            let added = index + 1 - keys.count
            guard table.take(added) else { return nil }
            // A walk asks in order: nothing to pad, most times (an empty padding still cost an iterator a page).
            if added > 1 { keys.append(contentsOf: repeatElement(nil, count: added - 1)) }
            keys.append(known)
            return nil
        }
        // The key replaced is freed after the lock.
        _ = dropped
        return key
    }

    /// The same URL byte for byte (the key digests bytes; `String`'s `==` would take canonically equivalent text as
    /// equal).
    private static func sameBytes(_ left: PageURL, _ right: PageURL) -> Bool {
        guard left.port == right.port, sameBytes(left.path, right.path), sameBytes(left.host, right.host),
            sameBytes(left.scheme, right.scheme)
        else { return false }
        guard let query = left.query else { return right.query == nil }
        return right.query.map { sameBytes(query, $0) } ?? false
    }

    /// Two strings' UTF-8 bytes compared with one `memcmp` (issue 13, eleventh pass: `utf8.elementsEqual`, a byte at a
    /// time through the generic view, was ~9 % of a walk through entries in memory).
    private static func sameBytes(_ left: String, _ right: String) -> Bool {
        let compared = left.utf8.withContiguousStorageIfAvailable { left in
            right.utf8.withContiguousStorageIfAvailable { right in
                guard left.count == right.count else { return false }
                // Both empty when either has no address.
                guard let leftBytes = left.baseAddress, let rightBytes = right.baseAddress else { return true }
                return memcmp(leftBytes, rightBytes, left.count) == 0
            }
        }
        // A string bridged from elsewhere has no contiguous bytes to compare: a byte at a time.
        return (compared ?? nil) ?? left.utf8.elementsEqual(right.utf8)
    }
}
