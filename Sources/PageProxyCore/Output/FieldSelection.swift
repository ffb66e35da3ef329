/// `_fields=id,name,owner.login`: the members of each item a caller keeps, copied byte for byte from the upstream.
///
/// DESIGN.md "Callers may also ask for less": selected fields stay byte-exact. An item is not decoded and encoded
/// again: its object is walked member by member (it was validated when the page was scanned), and each selected
/// member is copied as the upstream wrote it, key escapes and all, compacted like every item. A nested path keeps
/// the nesting (`owner.login` gives `{"owner":{"login":"x"}}`); members come out in the item's own order, not the
/// selection's. A member an item lacks is left out, and so is a parent none of whose selected members it has, or
/// that is not an object (`owner.login` when `owner` is null). When an object repeats a selected key, its last
/// occurrence is kept, where the first stood, as `JSON.parse` and Python's `json` read it, and as the scanner does
/// (loose12). An item that is not an object has no members to choose from: it is kept whole, so that items keep
/// their positions (windows count them).
public struct FieldSelection: Sendable, Equatable, CustomStringConvertible {
    /// A selected member: its key (UTF-8, unescaped) and either the whole value or some of its own members.
    struct Member: Sendable, Equatable {
        var key: [UInt8]
        /// Empty: the whole value; otherwise only these members of it (when it is an object).
        var members: [Member]
    }

    /// Why a selection cannot be read.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// What is wrong with the selection, in words for the caller (the message of a 400 `invalid_control`).
        public let description: String
    }

    /// The most fields one selection may name.
    public static let maxFields = 64
    /// The most steps one field's path may have.
    public static let maxDepth = 16

    let members: [Member]
    /// The selection as given, spaces around names removed: part of the answer's identity (ETag, memo key).
    public let description: String

    /// Reads `id,name,owner.login`: fields separated by commas, steps of a nested path by dots; spaces around a
    /// name are ignored. A key that contains a comma or a dot cannot be named.
    public init(parsing text: String) throws(Invalid) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard !(fields.count == 1 && fields[0].isEmpty) else { throw Invalid(description: "_fields is empty; name fields like id,name,owner.login") }
        guard fields.count <= Self.maxFields else {
            throw Invalid(description: "_fields names \(fields.count) fields; at most \(Self.maxFields) are allowed")
        }
        var members: [Member] = []
        for (index, field) in fields.enumerated() {
            guard !field.isEmpty else { throw Invalid(description: "_fields has an empty field at position \(index + 1) (two commas, or one at an end)") }
            let steps = field.split(separator: ".", omittingEmptySubsequences: false)
            guard !steps.contains(where: \.isEmpty) else {
                throw Invalid(description: "_fields: \"\(field.prefix(80))\" has an empty step (a dot at an end, or two dots)")
            }
            guard steps.count <= Self.maxDepth else {
                throw Invalid(description: "_fields: \"\(field.prefix(80))\" is \(steps.count) steps deep; at most \(Self.maxDepth) are allowed")
            }
            Self.insert(steps.map { Array($0.utf8) }, into: &members)
        }
        self.members = members
        self.description = fields.joined(separator: ",")
    }

    /// Adds one path to the tree; a whole member absorbs any deeper path through it (`owner,owner.login` is `owner`).
    private static func insert(_ path: [[UInt8]], into members: inout [Member]) {
        guard let key = path.first else { return }
        guard let index = members.firstIndex(where: { $0.key == key }) else {
            var member = Member(key: key, members: [])
            if path.count > 1 { insert(Array(path.dropFirst()), into: &member.members) }
            members.append(member)
            return
        }
        if members[index].members.isEmpty { return }
        if path.count == 1 {
            members[index].members = []
        } else {
            insert(Array(path.dropFirst()), into: &members[index].members)
        }
    }

    /// `page` with each item replaced by its selected members; the new body holds the items joined by commas.
    package func project(_ page: Page) -> Page {
        var body: [UInt8] = []
        body.reserveCapacity(page.body.count)
        var items: [JSONItem] = []
        items.reserveCapacity(page.itemCount)
        for item in page.items {
            if !items.isEmpty { body.append(UInt8(ascii: ",")) }
            let start = body.count
            append(item, of: page.body, to: &body)
            items.append(JSONItem(range: start..<body.count, isCompact: true))
        }
        var projected = Page(
            number: page.number, url: page.url, status: page.status, headers: page.headers, body: body, items: items, values: page.values)
        // The page's identity is its upstream body; the selection is part of the answer's shape (AggregateETag).
        projected.storedChecksum = page.storedChecksum
        return projected
    }

    /// Appends `item`'s selected members to `output`, compact; a non-object item whole.
    package func append(_ item: JSONItem, of body: [UInt8], to output: inout [UInt8]) {
        let copied: Bool = body.withUnsafeBufferPointer { buffer in
            let reader = MemberReader(bytes: buffer, compact: item.isCompact)
            return reader.appendObject(at: item.range.lowerBound, selecting: members, to: &output)
        }
        if !copied { JSONScanner.appendItem(item, of: body, to: &output) }
    }
}

/// Walks the members of validated JSON objects, copying selected ones.
private struct MemberReader {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Whether the item holds no whitespace outside strings (its values can be copied without compacting).
    let compact: Bool

    /// Appends the object at `start` with only `members` (in the object's order); false when the value at `start`
    /// is not an object, with nothing appended. An object none of whose selected members are present appends `{}`.
    func appendObject(at start: Int, selecting members: [FieldSelection.Member], to output: inout [UInt8]) -> Bool {
        guard bytes[skipSpace(start)] == UInt8(ascii: "{") else { return false }
        let objectMark = output.count
        output.append(UInt8(ascii: "{"))
        var wrote = false
        // One bit per selected member (at most `maxFields`, 64): which were found already.
        var taken: UInt64 = 0
        let repeated = forEachMember(of: start) { key, value in
            guard let index = match(key.lowerBound + 1..<key.upperBound - 1, in: members) else { return true }
            // A selected key again: its last occurrence wins, which this pass has no room to tell (loose12).
            guard taken & (1 << UInt64(index)) == 0 else { return false }
            taken |= 1 << UInt64(index)
            if appendMember(key: key, value: value, selecting: members[index].members, after: wrote, to: &output) { wrote = true }
            return true
        }
        if repeated {
            output.removeLast(output.count - objectMark)
            appendObjectTakingLast(at: start, selecting: members, to: &output)
            return true
        }
        output.append(UInt8(ascii: "}"))
        return true
    }

    /// `appendObject` for an object that repeats a selected key: each selected member as its last occurrence wrote it,
    /// in the order of their first occurrences (where `JSON.parse` keeps a repeated key).
    private func appendObjectTakingLast(at start: Int, selecting members: [FieldSelection.Member], to output: inout [UInt8]) {
        var order: [Int] = []
        var last = [(key: Range<Int>, value: Range<Int>)?](repeating: nil, count: members.count)
        _ = forEachMember(of: start) { key, value in
            guard let index = match(key.lowerBound + 1..<key.upperBound - 1, in: members) else { return true }
            if last[index] == nil { order.append(index) }
            last[index] = (key, value)
            return true
        }
        output.append(UInt8(ascii: "{"))
        var wrote = false
        for index in order {
            guard let (key, value) = last[index] else { continue }
            if appendMember(key: key, value: value, selecting: members[index].members, after: wrote, to: &output) { wrote = true }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Calls `body` with the key (quotes included) and the value of each member of the object at `start`, in order,
    /// until it returns false; returns whether it did.
    private func forEachMember(of start: Int, _ body: (_ key: Range<Int>, _ value: Range<Int>) -> Bool) -> Bool {
        var i = skipSpace(start) + 1
        while true {
            i = skipSpace(i)
            if bytes[i] == UInt8(ascii: "}") { return false }
            if bytes[i] == UInt8(ascii: ",") {
                i = skipSpace(i + 1)
            }
            let keyStart = i
            let keyEnd = endOfString(keyStart)
            i = skipSpace(keyEnd) + 1  // past the colon
            let valueStart = skipSpace(i)
            let valueEnd = endOfValue(valueStart)
            i = valueEnd
            if !body(keyStart..<keyEnd, valueStart..<valueEnd) { return true }
        }
    }

    /// Appends one selected member, preceded by a comma `after` another; false, with nothing appended, for a nested
    /// selection whose value is not an object with a selected member (its parent is left out).
    private func appendMember(
        key: Range<Int>, value: Range<Int>, selecting nested: [FieldSelection.Member], after wrote: Bool, to output: inout [UInt8]
    ) -> Bool {
        let mark = output.count
        if wrote { output.append(UInt8(ascii: ",")) }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[key]))
        output.append(UInt8(ascii: ":"))
        if nested.isEmpty {
            appendValue(value, to: &output)
            return true
        }
        // A nested selection keeps its parent only if the parent is an object with a selected member.
        let before = output.count
        guard appendObject(at: value.lowerBound, selecting: nested, to: &output), output.count > before + 2 else {
            output.removeLast(output.count - mark)
            return false
        }
        return true
    }

    /// The selected member whose key the raw (still escaped) key bytes spell.
    private func match(_ raw: Range<Int>, in members: [FieldSelection.Member]) -> Int? {
        let key = UnsafeBufferPointer(rebasing: bytes[raw])
        let decoded: [UInt8]? = key.contains(UInt8(ascii: "\\")) ? JSONStringDecoder.decode(key) : nil
        for (index, member) in members.enumerated() {
            if decoded.map({ member.key == $0 }) ?? member.key.elementsEqual(key) { return index }
        }
        return nil
    }

    private func appendValue(_ range: Range<Int>, to output: inout [UInt8]) {
        guard compact else {
            // A pretty-printed item: its value is compacted as every item is.
            JSONScanner.appendItem(JSONItem(range: 0..<range.count, isCompact: false), of: Array(bytes[range]), to: &output)
            return
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
    }

    private func skipSpace(_ start: Int) -> Int {
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return i
            }
        }
        return i
    }

    /// One past the closing quote of the string that opens at `start`.
    private func endOfString(_ start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = start + 1
        // The buffer holds the item, so it has an address; an empty one has no string to end.
        guard let base = bytes.baseAddress else { return i }
        while true {
            // Eight bytes at a time while there is neither quote nor backslash (as `JSONScanner.appendItem` does).
            while bytes.count - i >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & high
                if special != 0 {
                    i += special.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            switch bytes[i] {
            case UInt8(ascii: "\""): return i + 1
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
    }

    /// One past the last byte of the value that starts at `start`.
    private func endOfValue(_ start: Int) -> Int {
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            repeat {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    i = endOfString(i)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                i += 1
            } while depth > 0
            return i
        default:
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return i
                default: i += 1
                }
            }
            return i
        }
    }
}

extension Substring {
    /// The text without the spaces at its ends.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
