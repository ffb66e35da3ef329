/// A lenient reader of a Structured Field List (RFC 9651 §3.1) of items with parameters, enough for the IETF
/// `RateLimit` and `RateLimit-Policy` fields: `"default";r=50;t=30, "daily";r=999`.
///
/// Items and parameter values are returned as text: a string loses its quotes and escapes, a token, integer or byte
/// sequence stays as written. A member that does not parse is skipped rather than failing the whole field, since
/// these fields only advise.
package enum StructuredFieldList {
    /// One list member: its bare item and its parameters by key.
    package struct Member: Sendable, Equatable {
        package var item: String
        /// Parameter values by key; a parameter without a value is "?1" (Boolean true, RFC 9651 §3.1.2).
        package var parameters: [String: String]
    }

    /// The members of all the field lines, in order (RFC 9651 §3.1: lines are joined with commas).
    package static func parse(_ lines: [String]) -> [Member] {
        var members: [Member] = []
        for line in lines {
            for text in split(line[...], at: ",") {
                if let member = member(text) { members.append(member) }
            }
        }
        return members
    }

    /// `item;key=value;key` → a member; nil when the item is empty.
    private static func member(_ text: Substring) -> Member? {
        let pieces = split(text, at: ";")
        guard let first = pieces.first else { return nil }
        let item = value(first)
        guard !item.isEmpty else { return nil }
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard let key = pair.first.map({ $0.trimmingSpaces().lowercased() }), !key.isEmpty else { continue }
            // RFC 9651 §4.2.3.2 — a repeated parameter key: the last value wins.
            parameters[key] = pair.count > 1 ? value(pair[1]) : "?1"
        }
        return Member(item: item, parameters: parameters)
    }

    /// Splits at `separator` outside quoted strings (a comma between members, a semicolon between parameters).
    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        var inString = false
        while index < text.endIndex {
            let character = text[index]
            if inString {
                if character == "\\" {
                    index = text.index(after: index)
                    if index == text.endIndex { break }
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == separator {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }

    /// A bare item as text: a string unquoted and unescaped, anything else trimmed.
    private static func value(_ text: Substring) -> String {
        let trimmed = text.trimmingSpaces()
        guard trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") else { return String(trimmed) }
        var result = ""
        var escaped = false
        for character in trimmed.dropFirst().dropLast() {
            if escaped || character != "\\" {
                result.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return result
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (RFC 9651 §4.2: OWS around members and parameters).
    fileprivate func trimmingSpaces() -> Substring {
        let characters = self[...]
        let start = characters.firstIndex { $0 != " " && $0 != "\t" } ?? characters.endIndex
        let end = characters.lastIndex { $0 != " " && $0 != "\t" }.map { characters.index(after: $0) } ?? start
        return Substring(characters[start..<Swift.max(start, end)])
    }
}
