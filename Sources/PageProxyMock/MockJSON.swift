import PageProxyCore

/// Small helpers for writing compact JSON text (strings are escaped by Core's `JSONText`, the package's one escaper).
package enum MockJSON {
    /// A JSON string literal, or `null` for nil.
    package static func stringOrNull(_ text: String?) -> String {
        text.map(JSONText.string) ?? "null"
    }

    /// The bytes of `prefix`, then `array`, then `suffix` — for envelopes around an item array.
    package static func envelope(_ prefix: String, _ array: [UInt8], _ suffix: String) -> [UInt8] {
        Array(prefix.utf8) + array + Array(suffix.utf8)
    }
}
