/// Parses `Link` header fields (RFC 8288 §3), tolerantly: malformed link-values are skipped, input never crashes it.
package enum LinkHeaderParser {
    /// RFC 8288 §3 — `Link = #link-value`, `link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )`.
    package static func parse(_ fieldValue: String) -> [LinkHeaderValue] {
        read(fieldValue).links
    }

    /// The link-values of every `Link` field, in order.
    package static func parse(_ headers: HTTPHeaders) -> [LinkHeaderValue] {
        read(headers).links
    }

    /// What `Link` fields say: the link-values read, and the text of each one skipped as malformed (attack22 item 2:
    /// whether a skipped one names `next` is decided on its own text, not on the whole field's).
    package struct Reading: Sendable, Equatable {
        package var links: [LinkHeaderValue] = []
        package var malformed: [String] = []
    }

    /// Every `Link` field read in order.
    package static func read(_ headers: HTTPHeaders) -> Reading {
        var reading = Reading()
        for value in headers.values("Link") {
            let one = read(value)
            reading.links += one.links
            reading.malformed += one.malformed
        }
        return reading
    }

    /// One field read. A `<` inside a target is no URI-Reference (RFC 3986 has no raw `<`): the link-value before it
    /// was never closed, and the `<` starts the next one (attack22 item 3; Python requests splits on `, *<` alike).
    package static func read(_ fieldValue: String) -> Reading {
        var scanner = Scanner(bytes: Array(fieldValue.utf8))
        var reading = Reading()
        while true {
            scanner.skip { $0 == UInt8(ascii: ",") || HTTPFieldSyntax.isWhitespace($0) }
            guard !scanner.isAtEnd else { return reading }
            let start = scanner.index
            if let link = scanner.linkValue() {
                reading.links.append(link)
                continue
            }
            if scanner.current != UInt8(ascii: "<") || scanner.index == start { scanner.skipToNextLinkValue() }
            reading.malformed.append(scanner.text(start..<scanner.index))
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skip(while predicate: (UInt8) -> Bool) {
            while let byte = current, predicate(byte) { index += 1 }
        }

        /// One link-value ending at a top-level "," or the end; nil (with `index` somewhere inside it) when malformed,
        /// or at the `<` that begins the next one when its target is never closed.
        mutating func linkValue() -> LinkHeaderValue? {
            guard current == UInt8(ascii: "<") else { return nil }
            index += 1
            let targetStart = index
            skip { $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "<") }
            guard current == UInt8(ascii: ">") else { return nil }
            let target = text(targetStart..<index)
            index += 1
            var parameters: [String: String] = [:]
            while true {
                skip(while: HTTPFieldSyntax.isWhitespace)
                guard let byte = current, byte != UInt8(ascii: ",") else { break }
                guard byte == UInt8(ascii: ";") else { return nil }
                index += 1
                skip(while: HTTPFieldSyntax.isWhitespace)
                // RFC 8288 §3 — link-param = token BWS [ "=" BWS ( token / quoted-string ) ].
                let nameStart = index
                skip(while: HTTPFieldSyntax.isTokenChar)
                guard index > nameStart else {
                    if current == UInt8(ascii: ";") || current == UInt8(ascii: ",") || isAtEnd { continue }  // empty param
                    return nil
                }
                let name = text(nameStart..<index).lowercased()
                skip(while: HTTPFieldSyntax.isWhitespace)
                var value = ""
                if current == UInt8(ascii: "=") {
                    index += 1
                    skip(while: HTTPFieldSyntax.isWhitespace)
                    if current == UInt8(ascii: "\"") {
                        guard let quoted = quotedString() else { return nil }
                        value = quoted
                    } else {
                        let valueStart = index
                        skip { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") && !HTTPFieldSyntax.isWhitespace($0) }
                        value = text(valueStart..<index)
                    }
                }
                // RFC 8288 §3.3 — occurrences of rel after the first are ignored (done for every parameter).
                if parameters[name] == nil { parameters[name] = value }
            }
            let relations = (parameters["rel"] ?? "").lowercased()
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            return LinkHeaderValue(target: target, relations: relations, parameters: parameters)
        }

        /// RFC 9110 §5.6.4 — quoted-string with backslash quoted-pairs; nil when unterminated.
        mutating func quotedString() -> String? {
            index += 1
            var value: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return nil }
                    value.append(escaped)
                    index += 1
                default:
                    value.append(byte)
                }
            }
            return nil
        }

        /// Skips the rest of a malformed link-value: up to the next "," outside quotes and angle brackets.
        mutating func skipToNextLinkValue() {
            var inQuotes = false
            var inBrackets = false
            while let byte = current {
                if inQuotes {
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        inQuotes = false
                    }
                } else if inBrackets {
                    if byte == UInt8(ascii: ">") { inBrackets = false }
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = true
                } else if byte == UInt8(ascii: "<") {
                    inBrackets = true
                } else if byte == UInt8(ascii: ",") {
                    return
                }
                index += 1
            }
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: bytes[range], as: UTF8.self)
        }
    }
}
