import Foundation

/// The query parameter by which an upstream's next link numbers its pages, found by comparing the link with the
/// page it came from: the one parameter whose whole-number value grows (`page` 1 → 2, `offset` 0 → 10).
struct PageNumbering: Equatable {
    let parameter: String
    /// The next page's number (or offset).
    let first: Int
    /// How much it grows from page to page.
    let step: Int

    /// Nil unless exactly one parameter grows: anything else (a cursor, two counters) is not a numbering.
    init?(from current: PageURL, to next: PageURL, itemCount: Int) {
        var found: [PageNumbering] = []
        for pair in next.queryPairs {
            guard let name = pair.name.removingPercentEncoding, let value = pair.value.removingPercentEncoding.flatMap({ Int($0) }),
                !Self.isSizeName(name)
            else { continue }
            let step: Int
            if let previous = current.integerQueryValue(name) {
                let (difference, overflow) = value.subtractingReportingOverflow(previous)
                guard !overflow, difference > 0 else { continue }
                step = difference
            } else if Self.isOffsetName(name) {
                // An absent offset is 0: the link's offset is the first page's size.
                guard value == itemCount, itemCount > 0 else { continue }
                step = itemCount
            } else {
                // An absent page number is 1 (DRF and JSON:API leave it out of the first page's URL).
                guard value == 2 else { continue }
                step = 1
            }
            found.append(PageNumbering(parameter: name, first: value, step: step))
        }
        guard found.count == 1 else { return nil }
        self = found[0]
    }

    private init(parameter: String, first: Int, step: Int) {
        self.parameter = parameter
        self.first = first
        self.step = step
    }

    /// Whether this is a page number (its name says page) that grows by 1 or an offset (its name says offset) that
    /// grows by a page's size (`itemCount`, or the size `next` asks for: `limit=100`): not a keyset (`after_id`) whose
    /// steps only looked even once.
    func isPlain(itemCount: Int, next: PageURL) -> Bool {
        if Self.isKeysetName(parameter) { return false }
        if step == 1 && parameter.lowercased().contains("page") { return true }
        guard Self.isOffsetName(parameter) else { return false }
        return step == itemCount
            || next.queryPairs.contains { pair in
                pair.name.removingPercentEncoding.map(Self.isSizeName) == true && pair.value.removingPercentEncoding.flatMap { Int($0) } == step
            }
    }

    /// Whether `next` is `current` renumbered: every other parameter of `next` is in `current` with the same value
    /// (a page size may be added or changed, and parameters `next` drops stay dropped on every page built from it).
    /// A cursor, signature or timestamp beside the number (`?page=2&cursor=c1`) is not: a page built from `next` with
    /// another number keeps page 2's cursor, and the upstream answers page 2 again (attack14 M9). Such links are followed.
    func renumbers(_ current: PageURL, as next: PageURL) -> Bool {
        let decoded = { (pair: (name: String, value: String)) in
            [PageURL.decodeQueryComponent(pair.name) ?? pair.name, PageURL.decodeQueryComponent(pair.value) ?? pair.value]
        }
        let kept = Set(current.queryPairs.map(decoded))
        return next.queryPairs.map(decoded).allSatisfy { pair in
            pair[0] == parameter || Self.isSizeName(pair[0]) || kept.contains(pair)
        }
    }

    static func isOffsetName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return !isKeysetName(name) && ["offset", "start", "skip", "from"].contains { lowered.contains($0) }
    }

    /// A name that points at an item, not a position (`from_id`, `startId`, `offset_id`, `starting_after`,
    /// `since`): its values look like offsets while the first page's ids are dense, and stop once one is deleted
    /// (review11: such pages fetched as numbered would skip or repeat items).
    private static func isKeysetName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.hasSuffix("id") || lowered.contains("id_") || lowered.contains("_id")
            || ["after", "before", "since", "until", "cursor", "token", "key"].contains { lowered.contains($0) }
    }

    private static func isSizeName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["size", "limit", "per_page", "perpage", "count"].contains { lowered.contains($0) }
    }
}
