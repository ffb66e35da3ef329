/// Reads JSON text in a query parameter (GraphQL's `variables` over GET) into the value tree Rison shares
/// (`QueryValue`): numbers keep their text, members their order. Bounded as `RisonDecoder` is; whitespace between
/// tokens is skipped, as JSON allows.
package struct QueryJSONDecoder {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    private init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// The value `text` holds.
    package static func decode(_ text: String) throws(RisonDecoder.Invalid) -> QueryValue {
        var decoder = QueryJSONDecoder(text)
        let value = try decoder.value(depth: 0)
        decoder.skipSpace()
        guard decoder.index == decoder.scalars.count else { throw decoder.invalid("unexpected \"\(decoder.scalars[decoder.index])\"") }
        return value
    }

    private func invalid(_ problem: String) -> RisonDecoder.Invalid { RisonDecoder.Invalid(offset: index, problem: problem) }

    private var next: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func skipSpace() {
        while let scalar = next, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { index += 1 }
    }

    private mutating func expect(_ word: String) throws(RisonDecoder.Invalid) {
        for scalar in word.unicodeScalars {
            guard next == scalar else { throw invalid("expected \"\(word)\"") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(RisonDecoder.Invalid) -> QueryValue {
        guard depth < RisonDecoder.maxDepth else { throw invalid("nested deeper than \(RisonDecoder.maxDepth)") }
        skipSpace()
        switch next {
        case "{":
            index += 1
            var members: [(name: String, value: QueryValue)] = []
            skipSpace()
            if next == "}" {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard next == "\"" else { throw invalid("expected a member name in quotes") }
                let name = try string()
                skipSpace()
                guard next == ":" else { throw invalid("expected \":\" after the member name \"\(name)\"") }
                index += 1
                members.append((name, try value(depth: depth + 1)))
                guard try separated(closingWith: "}") else { return .object(members) }
            }
        case "[":
            index += 1
            var elements: [QueryValue] = []
            skipSpace()
            if next == "]" {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                guard try separated(closingWith: "]") else { return .array(elements) }
            }
        case "\"": return .string(try string())
        case "t":
            try expect("true")
            return .bool(true)
        case "f":
            try expect("false")
            return .bool(false)
        case "n":
            try expect("null")
            return .null
        case nil: throw invalid("a value is missing")
        case let other?:
            guard other == "-" || ("0"..."9").contains(other) else { throw invalid("unexpected \"\(other)\"") }
            return .number(try number())
        }
    }

    /// After a member or element (and any space): true past a `,`, false past `close` (`RisonDecoder.scanSeparator`).
    private mutating func separated(closingWith close: Unicode.Scalar) throws(RisonDecoder.Invalid) -> Bool {
        skipSpace()
        let (more, problem) = RisonDecoder.scanSeparator(next, closingWith: close)
        if let problem { throw invalid(problem) }
        index += 1
        return more
    }

    /// At `"`: the string with its escapes decoded (a lone surrogate escape is an error).
    private mutating func string() throws(RisonDecoder.Invalid) -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while let scalar = next {
            index += 1
            switch scalar {
            case "\"": return String(text)
            case "\\":
                guard let escaped = next else { break }
                index += 1
                switch escaped {
                case "\"", "\\", "/": text.append(escaped)
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                case "u":
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw invalid("a surrogate pair is not whole") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let decoded = Unicode.Scalar(code) else { throw invalid("a surrogate pair is not whole") }
                    text.append(decoded)
                default: throw invalid("unknown escape \"\\\(escaped)\"")
                }
            default:
                guard scalar.value >= 0x20 else { throw invalid("a control character in a string") }
                text.append(scalar)
            }
        }
        throw invalid("a string's closing quote is missing")
    }

    private mutating func hex4() throws(RisonDecoder.Invalid) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = next, let digit = UInt32(String(scalar), radix: 16) else { throw invalid("expected four hex digits") }
            code = code * 16 + digit
            index += 1
        }
        return code
    }

    /// JSON's number grammar (Rison's), kept as written.
    private mutating func number() throws(RisonDecoder.Invalid) -> String {
        let start = index
        let problem: String?
        (index, problem) = RisonDecoder.scanNumber(scalars, from: start)
        if let problem { throw invalid(problem) }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }
}
