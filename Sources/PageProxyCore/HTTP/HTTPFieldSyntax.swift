/// Character classes of RFC 9110 §5.6 and strict field-line parsing (RFC 9112 §5).
package enum HTTPFieldSyntax {
    /// RFC 9110 §8.8.3 — an entity tag without its weakness indicator (`W/"x"` → `"x"`): the weak comparison of two
    /// tags compares these.
    package static func opaqueTag(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }

    /// RFC 9110 §5.6.2 — tchar: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
    package static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    package static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenChar)
    }

    /// RFC 9110 §5.5 — field-value bytes: VCHAR, obs-text, SP and HT; never NUL, CR, LF or other controls.
    package static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// `bytes` without leading and trailing optional whitespace (RFC 9110 §5.6.3 OWS).
    package static func trimmingOWS(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isWhitespace(first) { slice.removeFirst() }
        while let last = slice.last, isWhitespace(last) { slice.removeLast() }
        return slice
    }

    /// Parses `name ":" OWS value OWS` with the request rules; the line has no line ending and no CR.
    package static func parseFieldLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        // RFC 9112 §5.2 — obs-fold (a line starting with SP or HT) is rejected with 400.
        if let first = line.first, isWhitespace(first) { throw .obsoleteLineFolding }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .missingColon }
        let name = line[..<colon]
        // RFC 9112 §5.1 — whitespace between the field name and colon must be rejected with 400.
        if let last = name.last, isWhitespace(last) { throw .whitespaceBeforeColon }
        // RFC 9110 §5.1 — field-name = token.
        guard isToken(name) else { throw .invalidHeaderName }
        let value = trimmingOWS(line[(colon + 1)...])
        // RFC 9110 §5.5 — NUL, CR, LF and other controls are invalid in a field value.
        guard value.allSatisfy(isFieldValueByte) else { throw .invalidHeaderValue }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// Parses `1*DIGIT` without sign, whitespace or overflow; nil otherwise.
    package static func parseDecimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }
}
