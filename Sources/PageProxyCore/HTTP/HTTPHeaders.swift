/// Ordered header fields. Names compare case-insensitively (ASCII, RFC 9110 §5.1) but keep their original spelling.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    package typealias Element = (name: String, value: String)

    private var fields: [Element]

    package init() {
        fields = []
    }

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name`.
    package subscript(name: String) -> String? {
        fields.first { HTTPHeaders.namesEqual($0.name, name) }?.value
    }

    /// Every value of the field `name`, in order.
    package func values(_ name: String) -> [String] {
        fields.compactMap { HTTPHeaders.namesEqual($0.name, name) ? $0.value : nil }
    }

    package func contains(_ name: String) -> Bool {
        fields.contains { HTTPHeaders.namesEqual($0.name, name) }
    }

    package mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field `name` with one field, kept at the position of the first one.
    package mutating func set(_ name: String, _ value: String) {
        guard let first = fields.firstIndex(where: { HTTPHeaders.namesEqual($0.name, name) }) else {
            fields.append((name: name, value: value))
            return
        }
        fields[first] = (name: name, value: value)
        var index = fields.count - 1
        while index > first {
            if HTTPHeaders.namesEqual(fields[index].name, name) { fields.remove(at: index) }
            index -= 1
        }
    }

    package mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.namesEqual($0.name, name) }
    }

    package var count: Int { fields.count }

    /// How many fields fit before adding allocates (for tests of `reserveCapacity`'s use).
    package var capacity: Int { fields.capacity }

    /// Room for `count` fields in all, so that adding that many allocates once.
    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// The comma-separated list elements of every field `name`, trimmed and lowercased, empty elements dropped
    /// (RFC 9110 §5.6.1), e.g. `Connection: keep-alive, Upgrade` gives `["keep-alive", "upgrade"]`.
    package func tokens(_ name: String) -> [String] {
        var result: [String] = []
        for value in values(name) {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                let trimmed = HTTPHeaders.trimmingOWS(element)
                if !trimmed.isEmpty {
                    result.append(String(decoding: trimmed.map(HTTPHeaders.lowercased), as: UTF8.self))
                }
            }
        }
        return result
    }

    package func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        for (left, right) in zip(lhs.fields, rhs.fields) {
            guard namesEqual(left.name, right.name), left.value == right.value else { return false }
        }
        return true
    }

    /// ASCII case-insensitive comparison of two field names.
    package static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8, right = rhs.utf8
        guard left.count == right.count else { return false }
        // Most names are compared with the same spelling (`set("Date", …)` on fields this code set).
        if lhs == rhs { return true }
        return left.elementsEqual(right) { lowercased($0) == lowercased($1) }
    }

    package static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    static func trimmingOWS(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }
}

extension HTTPHeaders {
    /// RFC 9112 §9.3 — HTTP/1.1 connections persist unless `Connection: close`; HTTP/1.0 ones only with `keep-alive`.
    func isKeepAlive(version: HTTPVersion) -> Bool {
        let options = tokens("Connection")
        if options.contains("close") { return false }
        if version.major == 1 && version.minor == 0 || version.major < 1 { return options.contains("keep-alive") }
        return true
    }
}
