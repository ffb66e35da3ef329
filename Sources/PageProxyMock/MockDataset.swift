/// The mock's items: deterministic, compact JSON objects, independent of page size.
///
/// Every item has a nested object and an array; every 7th (by id) carries a string with
/// JSON escapes and raw UTF-8; every 11th carries numbers no `Double` round-trips
/// (`12345678901234567890`, `1e400`, `-0.0`). Keys are in a fixed, non-alphabetical order.
package enum MockDataset {
    private static let kinds = ["widget", "gadget", "gizmo", "sprocket", "doohickey"]
    private static let colors = ["red", "green", "blue", "amber", "violet", "teal"]
    /// Escapes written as-is into the JSON text (the backslashes are part of the bytes).
    private static let escapedText =
        #"a\"b\\c\nd\u00e9 \u2028 \ud83d\ude00 é😀"#
    private static let filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do"

    /// The bytes of item `index` (0-based; its `id` is `index + 1`).
    package static func item(_ index: Int) -> [UInt8] {
        let id = index + 1
        var text = "{\"id\":\(id),\"name\":\"item-\(id)\",\"kind\":\"\(kinds[id % kinds.count])\""
        text += ",\"price\":{\"amount\":\(id &* 137 % 100_000),\"currency\":\"EUR\"}"
        text += ",\"tags\":[\"t\(id % 3)\",\"c-\(colors[id % colors.count])\",\(id % 10)]"
        text += ",\"active\":\(id % 2 == 0 ? "true" : "false"),\"ratio\":\(id % 4).\(id % 100),\"owner\":null"
        text += ",\"created\":\"2024-\(pad2(id % 12 + 1))-\(pad2(id % 28 + 1))\""
        if id % 7 == 0 {
            text += ",\"text\":\"\(escapedText)\""
        }
        if id % 11 == 0 {
            text += ",\"big\":12345678901234567890,\"huge\":1e400,\"nz\":-0.0"
        }
        text += ",\"note\":\"\(filler.prefix(id % 77 == 0 ? 1 : 2 + id % 19))\"}"
        return Array(text.utf8)
    }

    /// Ground truth: the bytes of items 0..<total, in order.
    package static func items(total: Int) -> [[UInt8]] {
        (0..<max(0, total)).map(item)
    }

    /// `[` + all items joined by `,` + `]`.
    package static func mergedJSON(total: Int) -> [UInt8] {
        array(items(total: total))
    }

    /// Each item followed by `\n`.
    package static func ndjson(total: Int) -> [UInt8] {
        var out: [UInt8] = []
        for item in items(total: total) {
            out += item
            out.append(0x0A)
        }
        return out
    }

    /// `[` + items joined by `,` + `]` for the items at `range` (clamped to `0..<total`), less those whose id is a
    /// multiple of `hidingEvery`, and those whose id is not a multiple of `showingEvery`.
    package static func page(offset: Int, count: Int, total: Int, hidingEvery: Int? = nil, showingEvery: Int? = nil) -> [UInt8] {
        let start = min(max(0, offset), max(0, total))
        let end = min(max(0, total), start + max(0, min(count, total)))
        return array((start..<end).filter { !isHidden($0, every: hidingEvery) && isShown($0, every: showingEvery) }.map(item))
    }

    /// Ground truth of a list whose pages hide every `hidingEvery`-th id (or show only every `showingEvery`-th): every
    /// item once, in order, less those.
    package static func mergedJSON(total: Int, hidingEvery: Int? = nil, showingEvery: Int? = nil) -> [UInt8] {
        page(offset: 0, count: total, total: total, hidingEvery: hidingEvery, showingEvery: showingEvery)
    }

    private static func isHidden(_ index: Int, every: Int?) -> Bool {
        every.map { (index + 1) % $0 == 0 } ?? false
    }

    private static func isShown(_ index: Int, every: Int?) -> Bool {
        every.map { (index + 1) % $0 == 0 } ?? true
    }

    /// `[` + `items` joined by `,` + `]`.
    package static func array(_ items: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [0x5B]
        for (position, item) in items.enumerated() {
            if position > 0 { out.append(0x2C) }
            out += item
        }
        out.append(0x5D)
        return out
    }

    private static func pad2(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
