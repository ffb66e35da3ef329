/// A value in a JSON object written by hand: a log line's field, an error answer's detail.
package enum JSONFieldValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    /// JSON text written as it is: only for text a JSON writer produced (an upstream's error body, re-encoded).
    case json(String)

    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .int(value) }

    /// Appends the value as JSON.
    package func appendJSON(to output: inout String) {
        switch self {
        case .string(let text): JSONText.appendString(text, to: &output)
        case .int(let number): output += String(number)
        case .double(let number): output += number.isFinite ? String(number) : "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .json(let text): output += text
        }
    }
}

/// Writes JSON text by hand for the few places that produce it (logs, error bodies, the mock upstream): the one
/// JSON string escaper of the package.
package enum JSONText {
    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    ///
    /// RFC 8259 §7 requires escaping `"`, `\` and U+0000–U+001F; U+2028 and U+2029 are escaped too, as JSON that is
    /// pasted into JavaScript source (before ES2019) would otherwise end a line inside a string.
    package static func appendString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar == "\u{2028}" || scalar == "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// `text` as a JSON string literal, quotes included.
    package static func string(_ text: String) -> String {
        var output = ""
        appendString(text, to: &output)
        return output
    }

    /// A JSON object from ordered fields.
    package static func object(_ fields: [(String, JSONFieldValue)]) -> String {
        var output = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { output += "," }
            appendString(key, to: &output)
            output += ":"
            value.appendJSON(to: &output)
        }
        return output + "}"
    }
}
