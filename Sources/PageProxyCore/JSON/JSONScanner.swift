/// A validating JSON scanner that finds the items of a page without decoding them.
///
/// `scan` checks the whole document against RFC 8259 in one pass (strings with every escape and surrogate
/// pair, raw UTF-8, numbers, literals, structure, nesting depth) and reports where each element of the
/// items array lies, so that its bytes can be copied to the client exactly as the upstream wrote them.
/// Only the values at the requested paths are materialised.
///
/// Path lookup: a `.key` component matches an object member with that (unescaped) key; an `.index`
/// component matches that element of an array, or an object member whose key is the index's decimal text.
/// When an object repeats a key, the last occurrence wins, as it does for JavaScript's and Python's parsers.
package struct JSONScanner: Sendable {
    /// Deepest nesting of objects and arrays accepted; deeper documents throw `.tooDeep`.
    package var maxDepth: Int

    package init(maxDepth: Int = 512) {
        self.maxDepth = maxDepth
    }

    /// Validates `bytes` as exactly one JSON document (leading/trailing whitespace allowed, nothing else after it)
    /// and returns the elements of the array at `itemsPath` and the values at `valuePaths`.
    /// `itemsPath` naming `null` yields no items; naming something missing throws `.itemsNotFound`;
    /// naming a non-array throws `.itemsNotAnArray`. Syntax errors take precedence over both.
    package func scan(
        _ bytes: [UInt8], itemsAt itemsPath: JSONPath, values valuePaths: [JSONPath] = []
    ) throws(JSONScanError) -> ScannedPage {
        // One bit per path in a pass: the items path and up to 63 value paths; more take extra passes.
        let inline = Array(valuePaths.prefix(63))
        let engine = try run(bytes, range: 0..<bytes.count, targets: [itemsPath] + inline, collectsItems: true)

        let items: [JSONItem]
        switch engine.itemsState {
        case .missing: throw .itemsNotFound(path: itemsPath.description)
        case .notArray(let found): throw .itemsNotAnArray(path: itemsPath.description, found: found)
        case .null: items = []
        case .array: items = engine.items
        }
        var values: [JSONPath: JSONValue] = [:]
        for (index, path) in inline.enumerated() {
            if values[path] == nil, let value = engine.results[index + 1] {
                values[path] = value
            }
        }
        for path in valuePaths.dropFirst(63) where values[path] == nil {
            if let value = try value(in: bytes, range: 0..<bytes.count, at: path) {
                values[path] = value
            }
        }
        return ScannedPage(items: items, values: values)
    }

    /// Reads the value at `path` inside an already validated value occupying `range` of `bytes`
    /// (used to read the `id` of the last item). Returns nil when the path does not exist.
    /// Byte ranges in the result are offsets in `bytes`. The range is validated again as it is read.
    package func value(in bytes: [UInt8], range: Range<Int>, at path: JSONPath) throws(JSONScanError) -> JSONValue? {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range outside the bytes")
        let engine = try run(bytes, range: range, targets: [path], collectsItems: false)
        return engine.results[0]
    }

    /// Validates `bytes` as one JSON document and returns the values found at `paths` (absent ones are left out),
    /// 64 paths per pass: what a scheme detector needs to look at many candidate paths of one page at once.
    package func values(in bytes: [UInt8], at paths: [JSONPath]) throws(JSONScanError) -> [JSONPath: JSONValue] {
        var values: [JSONPath: JSONValue] = [:]
        var start = 0
        repeat {
            let batch = Array(paths[start..<min(paths.count, start + 64)])
            let engine = try run(bytes, range: 0..<bytes.count, targets: batch, collectsItems: false)
            for (index, path) in batch.enumerated() where values[path] == nil {
                if let value = engine.results[index] { values[path] = value }
            }
            start += 64
        } while start < paths.count
        return values
    }

    private func run(
        _ bytes: [UInt8], range: Range<Int>, targets: [JSONPath], collectsItems: Bool
    ) throws(JSONScanError) -> JSONScanEngine {
        let outcome = bytes.withUnsafeBufferPointer { buffer -> Result<JSONScanEngine, JSONScanError> in
            guard let base = buffer.baseAddress, !range.isEmpty else {
                return .failure(.unexpectedEnd(offset: range.lowerBound))
            }
            // Items record 31-bit offsets (`JSONItem`).
            guard !collectsItems || range.upperBound <= JSONItem.maxOffset else {
                return .failure(.tooLarge(limit: JSONItem.maxOffset))
            }
            // A UTF-8 byte order mark before the document is skipped (RFC 8259 §8.1 lets a parser ignore one; some
            // Windows servers send it): it is outside every item, so items stay byte-exact (attack12 U6).
            let hasMark = range.lowerBound == 0 && range.count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF
            guard !hasMark || range.count > 3 else { return .failure(.unexpectedEnd(offset: 3)) }
            var engine = JSONScanEngine(
                base: base, start: hasMark ? 3 : range.lowerBound, end: range.upperBound, maxDepth: maxDepth,
                targets: targets, collectsItems: collectsItems)
            do throws(JSONScanError) {
                try engine.run()
            } catch {
                return .failure(error)
            }
            return .success(engine)
        }
        return try outcome.get()
    }

    /// Appends the item's bytes to `output`, dropping whitespace outside strings when the item is not compact,
    /// so that an item never contains a raw newline (NDJSON needs one item per line).
    package static func appendItem(_ item: JSONItem, of bytes: [UInt8], to output: inout [UInt8]) {
        precondition(item.range.lowerBound >= 0 && item.range.upperBound <= bytes.count, "item outside the bytes")
        guard !item.range.isEmpty else { return }
        let start = output.count
        bytes.withUnsafeBufferPointer { buffer in
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[item.range]))
        }
        guard !item.isCompact else { return }
        // Compact the copy in place: whitespace is only ever removed, so the writer never passes the reader.
        let compactedEnd = output.withUnsafeMutableBufferPointer { buffer in
            compactInPlace(buffer.baseAddress!, from: start, to: buffer.count)
        }
        output.removeLast(output.count - compactedEnd)
    }

    /// Removes the whitespace outside strings from `start..<end` of `p`, moving the rest down;
    /// returns the new end. String contents are moved as they are.
    private static func compactInPlace(_ p: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        var read = start
        var write = start
        while read < end {
            let byte = p[read]
            if byte == UInt8(ascii: "\"") {
                // Find the closing quote, eight bytes at a time while there is neither quote nor backslash.
                let stringStart = read
                read += 1
                scan: while true {
                    while end - read >= 8 {
                        let word = UInt64(littleEndian: UnsafeRawPointer(p + read).loadUnaligned(as: UInt64.self))
                        let quote = word ^ (ones &* 0x22)
                        let backslash = word ^ (ones &* 0x5C)
                        let special = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & high
                        if special != 0 {
                            read += special.trailingZeroBitCount >> 3
                            break
                        }
                        read += 8
                    }
                    guard read < end else { break scan }
                    let inner = p[read]
                    if inner == UInt8(ascii: "\"") {
                        read += 1
                        break scan
                    }
                    read += inner == UInt8(ascii: "\\") ? 2 : 1
                }
                read = min(read, end)
                let length = read - stringStart
                if write != stringStart {
                    UnsafeMutableRawPointer(p + write).copyMemory(from: p + stringStart, byteCount: length)
                }
                write += length
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                read += 1
            } else {
                p[write] = byte
                write += 1
                read += 1
            }
        }
        return write
    }
}
