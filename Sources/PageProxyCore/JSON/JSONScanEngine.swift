/// The single-pass validating scanner behind `JSONScanner`.
///
/// It walks the bytes once with an explicit stack (so nesting depth is bounded by `maxDepth`, never by the
/// machine stack), validates everything RFC 8259 requires, and on the way:
/// - records the byte range of every element of the items array (target 0 when `collectsItems`),
/// - records the value at each target path.
///
/// Path matching costs nothing outside the targets: each open container carries the bit mask of the targets
/// whose path is a prefix of its position, and keys are compared only when that mask is not empty.
/// Up to 64 targets are supported (one bit each).
///
/// Duplicate keys: the last occurrence wins, as it does for the upstream's own clients (JavaScript's `JSON.parse`,
/// Python's `json`, Go's `encoding/json`): a later member with a key on a target's path forgets what the targets
/// through it found in an earlier one (the items too), and they are found again, or not, in the later one
/// (`{"a":{"b":1},"a":{}}` has no `a.b`). Before loose12 the first won, so PageProxy followed a `next` or counted a
/// `count` that no client of the upstream would have read.
struct JSONScanEngine {
    /// One open object or array.
    struct Frame {
        var isObject: Bool
        /// Targets whose path leads exactly to this container or through it.
        var selfMask: UInt64
        /// Targets whose path continues below this container.
        var childMask: UInt64
        /// Offset of the opening bracket.
        var start: Int
        /// Number of elements seen so far (arrays only).
        var count: Int
    }

    /// A path to look for, prepared for byte comparison.
    struct Target {
        var length: Int
        /// The UTF-8 of each key component; for an index component, its decimal text (it may name an object key).
        var keys: [[UInt8]]
        /// The index of each index component, -1 for a key component.
        var indices: [Int]

        init(_ path: JSONPath) {
            length = path.components.count
            keys = []
            indices = []
            for component in path.components {
                switch component {
                case .key(let key):
                    keys.append(Array(key.utf8))
                    indices.append(-1)
                case .index(let index):
                    keys.append(Array(String(index).utf8))
                    indices.append(index)
                }
            }
        }
    }

    /// What was found at the items path.
    enum ItemsState {
        case missing
        case null
        case array
        case notArray(String)
    }

    let p: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    let targets: [Target]
    let collectsItems: Bool

    var i: Int
    /// Offset of the last whitespace byte skipped outside strings, to tell compact items.
    var lastWhitespace = -1
    var depth = 0
    var stack: [Frame] = []
    var current = Frame(isObject: false, selfMask: 0, childMask: 0, start: 0, count: 0)
    /// Every target, one bit each.
    let active: UInt64
    /// Depth of the items array while it is open, -1 otherwise.
    var itemsDepth = -1
    var itemStart = 0
    var items: [JSONItem] = []
    var itemsState = ItemsState.missing
    var results: [JSONValue?]

    init(
        base: UnsafePointer<UInt8>, start: Int, end: Int, maxDepth: Int,
        targets: [JSONPath], collectsItems: Bool
    ) {
        precondition(targets.count <= 64, "at most 64 paths per pass")
        self.p = base
        self.i = start
        self.end = end
        self.maxDepth = maxDepth
        self.targets = targets.map(Target.init)
        self.collectsItems = collectsItems
        self.active = targets.count == 64 ? ~0 : (UInt64(1) << UInt64(targets.count)) &- 1
        self.results = Array(repeating: nil, count: targets.count)
        stack.reserveCapacity(min(max(maxDepth, 0), 64))
    }

    // MARK: - Structure

    mutating func run() throws(JSONScanError) {
        skipWhitespace()
        var pending = active
        outer: while true {
            guard i < end else { throw .unexpectedEnd(offset: i) }
            let start = i
            if depth == itemsDepth { itemStart = start }
            switch p[i] {
            case UInt8(ascii: "{"):
                try open(isObject: true, pending: pending)
                i &+= 1
                skipWhitespace()
                guard i < end else { throw .unexpectedEnd(offset: i) }
                if p[i] == UInt8(ascii: "}") {
                    i &+= 1
                    close()
                } else {
                    pending = try memberKey()
                    continue outer
                }
            case UInt8(ascii: "["):
                try open(isObject: false, pending: pending)
                i &+= 1
                skipWhitespace()
                guard i < end else { throw .unexpectedEnd(offset: i) }
                if p[i] == UInt8(ascii: "]") {
                    i &+= 1
                    close()
                } else {
                    pending = current.childMask & active == 0 ? 0 : matchIndex(0)
                    current.count = 1
                    continue outer
                }
            case UInt8(ascii: "\""):
                i &+= 1
                let escaped = try scanString()
                if pending != 0 { recordScalar(pending, start: start, kind: .string(escaped: escaped)) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try scanNumber()
                if pending != 0 { recordScalar(pending, start: start, kind: .number) }
            case UInt8(ascii: "t"):
                try literal(0x6575_7274, length: 4)  // "true"
                if pending != 0 { recordScalar(pending, start: start, kind: .bool(true)) }
            case UInt8(ascii: "f"):
                try literal(0x736C_6166, length: 5)  // "fals" + "e"
                if pending != 0 { recordScalar(pending, start: start, kind: .bool(false)) }
            case UInt8(ascii: "n"):
                try literal(0x6C6C_756E, length: 4)  // "null"
                if pending != 0 { recordScalar(pending, start: start, kind: .null) }
            default:
                throw .unexpectedByte(p[i], offset: i)
            }
            // A value ended at `i`: close containers until the next value starts.
            while true {
                if depth == itemsDepth {
                    items.append(JSONItem(range: itemStart..<i, isCompact: lastWhitespace < itemStart))
                }
                if depth == 0 { break outer }
                skipWhitespace()
                guard i < end else { throw .unexpectedEnd(offset: i) }
                let byte = p[i]
                if byte == UInt8(ascii: ",") {
                    i &+= 1
                    skipWhitespace()
                    if current.isObject {
                        pending = try memberKey()
                    } else {
                        pending = current.childMask & active == 0 ? 0 : matchIndex(current.count)
                        current.count &+= 1
                    }
                    continue outer
                }
                if byte == (current.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i &+= 1
                    close()
                    continue
                }
                throw .unexpectedByte(byte, offset: i)
            }
        }
        skipWhitespace()
        if i < end { throw .trailingData(offset: i) }
    }

    /// Pushes a container whose opening bracket is at `i`.
    @inline(__always)
    private mutating func open(isObject: Bool, pending: UInt64) throws(JSONScanError) {
        guard depth < maxDepth else { throw .tooDeep(limit: maxDepth, offset: i) }
        stack.append(current)
        var childMask: UInt64 = 0
        if pending != 0 {
            let ends = endingMask(pending, length: depth)
            childMask = pending & ~ends
            if collectsItems, ends & 1 != 0 {
                if isObject {
                    itemsState = .notArray("an object")
                } else {
                    itemsState = .array
                    itemsDepth = depth &+ 1
                }
            }
        }
        depth &+= 1
        current = Frame(isObject: isObject, selfMask: pending, childMask: childMask, start: i, count: 0)
    }

    /// Pops the current container; its closing bracket ends just before `i`.
    @inline(__always)
    private mutating func close() {
        if current.selfMask != 0 { closeTarget() }
        if depth == itemsDepth { itemsDepth = -1 }
        current = stack.removeLast()
        depth &-= 1
    }

    private mutating func closeTarget() {
        var ends = endingMask(current.selfMask, length: depth &- 1)
        while ends != 0 {
            let k = ends.trailingZeroBitCount
            ends &= ends &- 1
            if collectsItems, k == 0 { continue }
            results[k] = current.isObject
                ? .object(current.start..<i) : .array(current.start..<i, count: current.count)
        }
    }

    /// Reads `"key" :` at `i` inside the current object and returns the targets matching the member's value.
    @inline(__always)
    private mutating func memberKey() throws(JSONScanError) -> UInt64 {
        guard i < end else { throw .unexpectedEnd(offset: i) }
        guard p[i] == UInt8(ascii: "\"") else { throw .unexpectedByte(p[i], offset: i) }
        let keyStart = i &+ 1
        i &+= 1
        let escaped = try scanString()
        let candidates = current.childMask & active
        var pending: UInt64 = 0
        if candidates != 0 {
            pending = matchKey(candidates, start: keyStart, end: i &- 1, escaped: escaped)
            if pending != 0 { forget(pending) }
        }
        skipWhitespace()
        guard i < end else { throw .unexpectedEnd(offset: i) }
        guard p[i] == UInt8(ascii: ":") else { throw .unexpectedByte(p[i], offset: i) }
        i &+= 1
        skipWhitespace()
        return pending
    }

    /// Forgets what the targets in `mask` found in an earlier member with the same key: the last one wins. Out of
    /// line: called for the few keys on a target's path, it stays out of the scan's inner loop.
    @inline(never)
    private mutating func forget(_ mask: UInt64) {
        var rest = mask
        while rest != 0 {
            let k = rest.trailingZeroBitCount
            rest &= rest &- 1
            results[k] = nil
        }
        if collectsItems, mask & 1 != 0 {
            items.removeAll(keepingCapacity: true)
            itemsState = .missing
        }
    }

    // MARK: - Paths

    /// The targets in `mask` whose path has exactly `length` components.
    private func endingMask(_ mask: UInt64, length: Int) -> UInt64 {
        var result: UInt64 = 0
        var rest = mask
        while rest != 0 {
            let k = rest.trailingZeroBitCount
            rest &= rest &- 1
            if targets[k].length == length { result |= UInt64(1) << UInt64(k) }
        }
        return result
    }

    /// The targets among the current array's whose next component is `index`.
    private func matchIndex(_ index: Int) -> UInt64 {
        let level = depth &- 1
        var result: UInt64 = 0
        var rest = current.childMask & active
        while rest != 0 {
            let k = rest.trailingZeroBitCount
            rest &= rest &- 1
            if targets[k].indices[level] == index { result |= UInt64(1) << UInt64(k) }
        }
        return result
    }

    /// The targets in `candidates` whose next component equals the key whose raw bytes are `start..<end`.
    private func matchKey(_ candidates: UInt64, start: Int, end: Int, escaped: Bool) -> UInt64 {
        let level = depth &- 1
        let raw = UnsafeBufferPointer(start: p + start, count: end - start)
        let decoded = escaped ? JSONStringDecoder.decode(raw) : []
        var result: UInt64 = 0
        var rest = candidates
        while rest != 0 {
            let k = rest.trailingZeroBitCount
            rest &= rest &- 1
            let key = targets[k].keys[level]
            let equal = escaped ? key == decoded : key.elementsEqual(raw)
            if equal { result |= UInt64(1) << UInt64(k) }
        }
        return result
    }

    enum ScalarKind {
        case string(escaped: Bool)
        case number
        case bool(Bool)
        case null
    }

    /// Records a scalar that ended just before `i` for the targets in `pending` that end here.
    private mutating func recordScalar(_ pending: UInt64, start: Int, kind: ScalarKind) {
        var ends = endingMask(pending, length: depth)
        while ends != 0 {
            let k = ends.trailingZeroBitCount
            ends &= ends &- 1
            if collectsItems, k == 0 {
                switch kind {
                case .null: itemsState = .null
                case .string: itemsState = .notArray("a string")
                case .number: itemsState = .notArray("a number")
                case .bool: itemsState = .notArray("a boolean")
                }
                continue
            }
            let value: JSONValue
            switch kind {
            case .string(let escaped):
                let raw = UnsafeBufferPointer(start: p + start + 1, count: i - start - 2)
                value = .string(
                    escaped
                        ? String(decoding: JSONStringDecoder.decode(raw), as: UTF8.self)
                        : String(decoding: raw, as: UTF8.self))
            case .number:
                value = .number(String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self))
            case .bool(let flag):
                value = .bool(flag)
            case .null:
                value = .null
            }
            results[k] = value
        }
    }

    // MARK: - Tokens

    @inline(__always)
    private mutating func skipWhitespace() {
        // Compact JSON has none: one comparison.
        guard i < end, p[i] <= 0x20 else { return }
        skipWhitespaceRun()
    }

    @inline(__always)
    private mutating func skipWhitespaceRun() {
        var j = i
        while j < end {
            let byte = p[j]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { break }
            j &+= 1
        }
        if j != i {
            lastWhitespace = j &- 1
            i = j
        }
    }

    /// Checks `true`, `false` or `null` at `i`: `word` holds the first four bytes, little-endian.
    @inline(__always)
    private mutating func literal(_ word: UInt32, length: Int) throws(JSONScanError) {
        if end &- i >= length {
            let loaded = UInt32(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self))
            if loaded == word, length == 4 || p[i &+ 4] == UInt8(ascii: "e") {
                i &+= length
                return
            }
        }
        try literalSlow(word, length: length)
    }

    private func literalSlow(_ word: UInt32, length: Int) throws(JSONScanError) {
        for k in 0..<length {
            guard i + k < end else { throw .unexpectedEnd(offset: end) }
            let expected = k < 4 ? UInt8(truncatingIfNeeded: word >> UInt32(8 * k)) : UInt8(ascii: "e")
            guard p[i + k] == expected else { throw .invalidLiteral(offset: i) }
        }
    }

    /// Scans a number starting at `i`, leaving `i` after its last byte.
    @inline(__always)
    private mutating func scanNumber() throws(JSONScanError) {
        let start = i
        var j = i
        if p[j] == UInt8(ascii: "-") {
            j &+= 1
            guard j < end else { throw .unexpectedEnd(offset: j) }
        }
        let first = p[j]
        if first == UInt8(ascii: "0") {
            j &+= 1
            if j < end, p[j] &- UInt8(ascii: "0") < 10 { throw .invalidNumber(offset: start) }
        } else if first &- UInt8(ascii: "1") < 9 {
            j &+= 1
            while j < end, p[j] &- UInt8(ascii: "0") < 10 { j &+= 1 }
        } else {
            throw .invalidNumber(offset: start)
        }
        if j < end, p[j] == UInt8(ascii: ".") {
            j &+= 1
            guard j < end else { throw .unexpectedEnd(offset: j) }
            guard p[j] &- UInt8(ascii: "0") < 10 else { throw .invalidNumber(offset: start) }
            j &+= 1
            while j < end, p[j] &- UInt8(ascii: "0") < 10 { j &+= 1 }
        }
        if j < end, p[j] | 0x20 == UInt8(ascii: "e") {
            j &+= 1
            guard j < end else { throw .unexpectedEnd(offset: j) }
            if p[j] == UInt8(ascii: "+") || p[j] == UInt8(ascii: "-") {
                j &+= 1
                guard j < end else { throw .unexpectedEnd(offset: j) }
            }
            guard p[j] &- UInt8(ascii: "0") < 10 else { throw .invalidNumber(offset: start) }
            j &+= 1
            while j < end, p[j] &- UInt8(ascii: "0") < 10 { j &+= 1 }
        }
        i = j
    }

    /// Scans a string whose opening quote is just before `i`, leaving `i` after the closing quote.
    /// Returns whether the string holds any escape.
    @inline(__always)
    private mutating func scanString() throws(JSONScanError) -> Bool {
        var j = i
        var escaped = false
        while true {
            // Eight bytes at a time while none is special (quote, backslash, control, non-ASCII).
            while end &- j >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
                let special = Self.specialBytes(word)
                if special != 0 {
                    j &+= special.trailingZeroBitCount &>> 3
                    break
                }
                j &+= 8
            }
            guard j < end else { throw .unexpectedEnd(offset: j) }
            let byte = p[j]
            if byte == UInt8(ascii: "\"") {
                i = j &+ 1
                return escaped
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                // `\" \\ \/ \b \f \n \r \t` inline; `\u` and errors out of line.
                if j &+ 1 < end, Self.isSimpleEscape(p[j &+ 1]) {
                    j &+= 2
                } else {
                    j = try escape(at: j)
                }
            } else if byte >= 0x80 {
                // Stay here through a run of non-ASCII characters.
                repeat {
                    j = try utf8Sequence(at: j)
                } while j < end && p[j] >= 0x80
            } else if byte < 0x20 {
                throw .controlCharacterInString(offset: j)
            } else {
                j &+= 1
            }
        }
    }

    /// Whether `byte` follows a backslash in a one-letter escape: `" \ / b f n r t`.
    @inline(__always)
    static func isSimpleEscape(_ byte: UInt8) -> Bool {
        // Bits for '"' (0x22) and '/' (0x2F) below 64; '\' (0x5C), 'b', 'f', 'n', 'r', 't' from 64 to 127.
        let low: UInt64 = 1 << 0x22 | 1 << 0x2F
        let high: UInt64 = 1 << (0x5C - 64) | 1 << (0x62 - 64) | 1 << (0x66 - 64) | 1 << (0x6E - 64)
            | 1 << (0x72 - 64) | 1 << (0x74 - 64)
        let mask = byte < 64 ? low : high
        return byte < 128 && (mask >> UInt64(byte & 63)) & 1 != 0
    }

    /// High bit set in each byte of `word` that is `"`, `\`, below 0x20 or above 0x7F.
    /// The lowest flagged byte is always exact (borrows only propagate upwards from a flagged byte).
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (control | isQuote | isBackslash | word) & high
    }

    /// Validates the escape whose backslash is at `j`; returns the offset after it.
    private func escape(at j: Int) throws(JSONScanError) -> Int {
        guard j &+ 1 < end else { throw .unexpectedEnd(offset: end) }
        switch p[j &+ 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return j &+ 2
        case UInt8(ascii: "u"):
            // Any four hex digits: RFC 8259 §8.2's grammar allows a lone surrogate (`"\ud800"`, which ES2019's
            // `JSON.stringify` writes), and items are copied byte-exact; a string PageProxy decodes (a next link, a
            // cursor) gets U+FFFD for it (`JSONStringDecoder`). attack11 L1: one such item failed the whole walk.
            _ = try hex4(at: j &+ 2, escape: j)
            return j &+ 6
        default:
            throw .invalidEscape(offset: j)
        }
    }

    private func hex4(at j: Int, escape: Int) throws(JSONScanError) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard j + k < end else { throw .unexpectedEnd(offset: end) }
            guard let digit = JSONStringDecoder.hexValue(p[j + k]) else {
                throw .invalidUnicodeEscape(offset: escape)
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Validates the UTF-8 sequence whose lead byte (>= 0x80) is at `j`; returns the offset after it.
    @inline(__always)
    private func utf8Sequence(at j: Int) throws(JSONScanError) -> Int {
        guard end &- j >= 4 else { return try utf8SequenceNearEnd(at: j) }
        // The four bytes from `j`, first byte lowest.
        let word = UInt32(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt32.self))
        if word & 0xC0E0 == 0x80C0 {
            // 110xxxxx 10xxxxxx: overlong when the lead is C0 or C1.
            guard word & 0x1E != 0 else { throw .invalidUTF8(offset: j) }
            return j &+ 2
        }
        if word & 0xC0_C0F0 == 0x80_80E0 {
            // 1110xxxx 10xxxxxx 10xxxxxx; `t` holds the lead's low nibble and the second byte's 0x20 bit:
            // E0 with a second byte below A0 is overlong, ED with one from A0 up encodes a surrogate.
            let t = word & 0x200F
            guard t != 0, t != 0x200D else { throw .invalidUTF8(offset: j) }
            return j &+ 3
        }
        if word & 0xC0C0_C0F8 == 0x8080_80F0 {
            // 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx: the plane (lead bits 2-0, second byte bits 5-4) must be 1...16.
            let plane = (word & 0x07) << 2 | (word >> 12) & 0x03
            guard plane >= 1, plane <= 16 else { throw .invalidUTF8(offset: j) }
            return j &+ 4
        }
        throw .invalidUTF8(offset: j)
    }

    /// `utf8Sequence` when fewer than four bytes remain.
    private func utf8SequenceNearEnd(at j: Int) throws(JSONScanError) -> Int {
        let lead = p[j]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw .invalidUTF8(offset: j)
        }
        var k = j &+ 1
        while k < j &+ length {
            // A truncated input is reported as such, unless what is there is already wrong.
            guard k < end else { throw .unexpectedEnd(offset: end) }
            let byte = p[k]
            let ok = k == j &+ 1 ? byte >= low && byte <= high : byte & 0xC0 == 0x80
            guard ok else { throw .invalidUTF8(offset: j) }
            k &+= 1
        }
        return k
    }
}
