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
        let (bytes, cut) = rebuilt(query, cuttingValueOf: name)
        return Template(prefix: Array(bytes[..<cut]), suffix: Array(bytes[cut...]))
    }

    /// `template(settingValueOf: name, in: query).query(with: encodedValue)`, built in one run of bytes (issue 13,
    /// eighth pass: a template's two arrays and their copy, for each next page of a walk).
    static func query(settingValueOf name: String, to encodedValue: String, in query: String?) -> String {
        var (bytes, cut) = rebuilt(query, cuttingValueOf: name, room: encodedValue.utf8.count)
        bytes.insert(contentsOf: encodedValue.utf8, at: cut)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The query rebuilt with the value of parameter `name` left out, and where it goes (see `template`).
    private static func rebuilt(_ query: String?, cuttingValueOf name: String, room: Int = 16) -> (bytes: [UInt8], cut: Int) {
        var bytes: [UInt8] = []
        var cut: Int?
        if var query {
            query.withUTF8 { raw in
                bytes.reserveCapacity(raw.count + max(room, 16))
                forEachPair(in: raw) { nameRange, valueRange in
                    let isMatch = matches(raw[nameRange], name)
                    // Later pairs of the same name are dropped.
                    if cut != nil && isMatch { return true }
                    if !bytes.isEmpty { bytes.append(UInt8(ascii: "&")) }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: raw[nameRange]))
                    // A bare `flag` stays bare (contract22 F3: Rack reads `flag` as nil and `flag=` as "").
                    if cut == nil && isMatch {
                        bytes.append(UInt8(ascii: "="))
                        cut = bytes.count
                    } else if let valueRange {
                        bytes.append(UInt8(ascii: "="))
                        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: raw[valueRange]))
                    }
                    return true
                }
            }
        }
        if let cut { return (bytes, cut) }
        if !bytes.isEmpty { bytes.append(UInt8(ascii: "&")) }
        bytes.append(contentsOf: PageURL.encodeQueryComponent(name).utf8)
        bytes.append(UInt8(ascii: "="))
        return (bytes, bytes.count)
    }

    /// The value of the first parameter whose decoded name is `name`, as `Int(decoded value)` reads it; a plain value
    /// (no `%`) is read off the query's bytes, with no `String` made (issue 13, eighth pass: a walk reads the page
    /// number and size of every page). Nil with no such parameter, or a value that is no `Int`.
    static func integerValue(of name: String, in query: String?) -> Int? {
        guard var query else { return nil }
        var encoded: String?
        let plain = query.withUTF8 { bytes -> Int? in
            var found: Int?
            forEachPair(in: bytes) { nameRange, valueRange in
                guard matches(bytes[nameRange], name) else { return true }
                let value = valueRange.map { bytes[$0] } ?? bytes[0..<0]
                if value.contains(UInt8(ascii: "%")) {
                    encoded = String(decoding: value, as: UTF8.self)
                } else {
                    found = decimal(value)
                }
                return false
            }
            return found
        }
        return encoded.map { PageURL.decodeQueryComponent($0).flatMap { Int($0) } } ?? plain
    }

    /// `Int(text)` of the ASCII bytes `text`: an optional sign and at least one digit; nil past `Int`'s range.
    static func decimal(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var digits = text
        let isNegative = digits.first == UInt8(ascii: "-")
        if isNegative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int(byte &- UInt8(ascii: "0"))
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) = isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflowed || overflowedAgain { return nil }
            value = next
        }
        return value
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
        if isPlain { return sameBytes(raw, name) }
        return PageURL.decodeQueryComponent(String(decoding: raw, as: UTF8.self)) == name
    }

    /// `raw.elementsEqual(name.utf8)`, by the lengths and one `memcmp` when `name`'s bytes are contiguous (issue 13,
    /// fifteenth pass: the generic comparison, a byte at a time through `String.UTF8View`, was ~4 % of a walk through
    /// entries in memory, which reads the page number and size of every page twice).
    private static func sameBytes(_ raw: Slice<UnsafeBufferPointer<UInt8>>, _ name: String) -> Bool {
        let compared = name.utf8.withContiguousStorageIfAvailable { name -> Bool in
            guard name.count == raw.count else { return false }
            guard let nameBytes = name.baseAddress, let rawBytes = raw.base.baseAddress else { return true }
            return memcmp(nameBytes, rawBytes + raw.startIndex, raw.count) == 0
        }
        return compared ?? raw.elementsEqual(name.utf8)
    }
}
