/// Small helpers for writing compact JSON text.
enum MockJSON {
    /// `text` as a JSON string literal, quotes included (only `"`, `\` and control characters escaped).
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON string literal, or `null` for nil.
    static func stringOrNull(_ text: String?) -> String {
        text.map(string) ?? "null"
    }

    /// The bytes of `prefix`, then `array`, then `suffix` — for envelopes around an item array.
    static func envelope(_ prefix: String, _ array: [UInt8], _ suffix: String) -> [UInt8] {
        Array(prefix.utf8) + array + Array(suffix.utf8)
    }
}
