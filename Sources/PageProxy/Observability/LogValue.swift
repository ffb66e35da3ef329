/// A value in a JSON log line.
enum LogValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    /// JSON text written as it is: only for text a JSON writer produced (an upstream's error body, re-encoded).
    case json(String)

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }

    /// Appends the value as JSON.
    func appendJSON(to output: inout String) {
        switch self {
        case .string(let text): JSONText.appendString(text, to: &output)
        case .int(let number): output += String(number)
        case .double(let number): output += number.isFinite ? String(number) : "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .json(let text): output += text
        }
    }
}

/// Writes JSON text by hand for the few places that produce it (logs and error bodies).
enum JSONText {
    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func appendString(_ text: String, to output: inout String) {
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

    /// A JSON object from ordered fields.
    static func object(_ fields: [(String, LogValue)]) -> String {
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
