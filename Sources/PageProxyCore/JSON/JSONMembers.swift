/// The top-level members of a JSON object: each key (escapes decoded) and the byte range of its value, found by
/// skipping over the values without decoding any of them.
///
/// For pages `JSONScanner` has already validated: `scheme: "auto"` names a page's keys and finds its one array of
/// objects, and a walk tells a page that left its items out. Foundation's `JSONSerialization` did both before
/// attack14 H1, at ~3 KB of memory an item and seconds of a cooperative-pool thread (a 16 MB page peaked at 5.4 GB).
/// Here the cost is one pass over the bytes, a bracket counter for nesting (no recursion, so no depth limit to
/// meet) and one entry per top-level member.
package enum JSONMembers {
    /// One member of the top-level object.
    package struct Member: Sendable, Equatable {
        package let key: String
        /// The value's bytes, from its first byte to its last.
        package let range: Range<Int>
        package let kind: Kind
    }

    /// What a member's value is, told by its first byte.
    package enum Kind: Sendable, Equatable {
        case object, array, scalar
    }

    /// The members of the object `bytes` holds, in the order written; a repeated key is listed once, with its last
    /// value (the scanner's rule). Nil when `bytes` is not a JSON object, or not well-formed after all.
    package static func of(_ bytes: [UInt8]) -> [Member]? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(p: buffer, i: 0)
            return reader.members()
        }
    }

    /// A cursor over the bytes; every read is bounds-checked, so malformed input ends in nil, never a trap.
    private struct Reader {
        let p: UnsafeBufferPointer<UInt8>
        var i: Int

        mutating func members() -> [Member]? {
            if p.count >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { i = 3 }
            skipWhitespace()
            guard byte == UInt8(ascii: "{") else { return nil }
            i += 1
            var members: [Member] = []
            var positions: [String: Int] = [:]
            skipWhitespace()
            if byte == UInt8(ascii: "}") { return members }
            while true {
                skipWhitespace()
                guard byte == UInt8(ascii: "\""), let keyEnd = stringEnd(from: i) else { return nil }
                let key = decodedKey(i + 1..<keyEnd - 1)
                i = keyEnd
                skipWhitespace()
                guard byte == UInt8(ascii: ":") else { return nil }
                i += 1
                skipWhitespace()
                let start = i
                guard let end = valueEnd(from: start) else { return nil }
                i = end
                let kind: Kind = switch p[start] {
                case UInt8(ascii: "{"): .object
                case UInt8(ascii: "["): .array
                default: .scalar
                }
                let member = Member(key: key, range: start..<end, kind: kind)
                if let position = positions[key] {
                    members[position] = member
                } else {
                    positions[key] = members.count
                    members.append(member)
                }
                skipWhitespace()
                switch byte {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "}"): return members
                default: return nil
                }
            }
        }

        /// The byte at the cursor; 0 past the end (no JSON token starts with it).
        private var byte: UInt8 { i < p.count ? p[i] : 0 }

        private mutating func skipWhitespace() {
            while i < p.count, [0x20, 0x09, 0x0A, 0x0D].contains(p[i]) { i += 1 }
        }

        /// The offset just past the string whose opening quote is at `start`.
        private func stringEnd(from start: Int) -> Int? {
            var j = start + 1
            while j < p.count {
                switch p[j] {
                case UInt8(ascii: "\\"): j += 2
                case UInt8(ascii: "\""): return j + 1
                default: j += 1
                }
            }
            return nil
        }

        /// The offset just past the value starting at `start`: a string, a container (strings inside skipped whole,
        /// brackets counted), or a scalar up to the next delimiter.
        private func valueEnd(from start: Int) -> Int? {
            guard start < p.count else { return nil }
            switch p[start] {
            case UInt8(ascii: "\""):
                return stringEnd(from: start)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                var j = start
                while j < p.count {
                    switch p[j] {
                    case UInt8(ascii: "\""):
                        guard let end = stringEnd(from: j) else { return nil }
                        j = end
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { return j + 1 }
                    default: break
                    }
                    j += 1
                }
                return nil
            default:
                var j = start
                while j < p.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(p[j]) {
                    j += 1
                }
                return j > start ? j : nil
            }
        }

        private func decodedKey(_ raw: Range<Int>) -> String {
            let slice = UnsafeBufferPointer(rebasing: p[raw])
            guard slice.contains(UInt8(ascii: "\\")) else { return String(decoding: slice, as: UTF8.self) }
            return String(decoding: JSONStringDecoder.decode(slice), as: UTF8.self)
        }
    }
}
