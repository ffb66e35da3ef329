import Foundation

/// A percent-encoded URL query read as bytes: finding a parameter and setting one without splitting the query into
/// strings (issue 13: splitting and rebuilding every page URL's query was a fifth of a walk through the cache).
///
/// The rules are `PageURL.queryPairs`' own: pairs split on `&` (empty ones dropped), a pair without `=` is a name
/// with an empty value, and names are compared after percent-decoding.
enum QueryBytes {
    /// A query with one parameter's value cut out: `prefix + value + suffix` is the query with that value set.
    struct Template: Sendable, Equatable {
        let prefix: [UInt8]
        let suffix: [UInt8]

        /// The query with `encodedValue` (already percent-encoded) in the cut.
        func query(with encodedValue: some StringProtocol) -> String {
            var bytes = prefix
            bytes.reserveCapacity(prefix.count + encodedValue.utf8.count + suffix.count)
            bytes.append(contentsOf: encodedValue.utf8)
            bytes.append(contentsOf: suffix)
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The query with the integer `number` in the cut (digits need no encoding).
        func query(with number: Int) -> String {
            query(with: String(number))
        }
    }

    /// The still-encoded value of the first parameter whose decoded name is `name`.
    static func rawValue(of name: String, in query: String?) -> String? {
        guard var query else { return nil }
        return query.withUTF8 { bytes in
            var found: String?
            forEachPair(in: bytes) { nameRange, valueRange in
                guard matches(bytes[nameRange], name) else { return true }
                found = valueRange.map { String(decoding: bytes[$0], as: UTF8.self) } ?? ""
                return false
            }
            return found
        }
    }

    /// `query` rebuilt as `PageURL.settingQueryValue` builds it, with the value of parameter `name` cut out: the first
    /// pair so named keeps its place and later ones are dropped; with none, the parameter is appended at the end.
    static func template(settingValueOf name: String, in query: String?) -> Template {
        var prefix: [UInt8] = []
        var suffix: [UInt8] = []
        var replaced = false
        if var query {
            query.withUTF8 { bytes in
                prefix.reserveCapacity(bytes.count + 16)
                forEachPair(in: bytes) { nameRange, valueRange in
                    let isMatch = matches(bytes[nameRange], name)
                    if replaced {
                        // Pairs after the cut go to the suffix; later pairs of the same name are dropped.
                        guard !isMatch else { return true }
                        suffix.append(UInt8(ascii: "&"))
                        suffix.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[nameRange]))
                        suffix.append(UInt8(ascii: "="))
                        if let valueRange { suffix.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[valueRange])) }
                    } else {
                        if !prefix.isEmpty { prefix.append(UInt8(ascii: "&")) }
                        prefix.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[nameRange]))
                        prefix.append(UInt8(ascii: "="))
                        if isMatch {
                            replaced = true
                        } else if let valueRange {
                            prefix.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[valueRange]))
                        }
                    }
                    return true
                }
            }
        }
        if !replaced {
            if !prefix.isEmpty { prefix.append(UInt8(ascii: "&")) }
            prefix.append(contentsOf: PageURL.encodeQueryComponent(name).utf8)
            prefix.append(UInt8(ascii: "="))
        }
        return Template(prefix: prefix, suffix: suffix)
    }

    /// Calls `body` with the ranges of each non-empty pair's name and value (nil when the pair has no `=`) in
    /// `bytes`, in order, until it returns false.
    private static func forEachPair(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>?) -> Bool) {
        var start = 0
        while start < bytes.count {
            var end = start
            var equals: Int?
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                if equals == nil, bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if start < end {
                let keepGoing = if let equals { body(start..<equals, (equals + 1)..<end) } else { body(start..<end, nil) }
                if !keepGoing { return }
            }
            start = end + 1
        }
    }

    /// Whether a raw (encoded) name is `name` once decoded. Plain ASCII names, nearly all of them, are compared
    /// byte for byte; anything else as `PageURL.decodeQueryComponent` and `String` equality compare it.
    private static func matches(_ raw: Slice<UnsafeBufferPointer<UInt8>>, _ name: String) -> Bool {
        let isPlain = raw.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "%") }
        if isPlain { return raw.elementsEqual(name.utf8) }
        return PageURL.decodeQueryComponent(String(decoding: raw, as: UTF8.self)) == name
    }
}
