/// The NDJSON answer of a merged answer's items, made from the merged body and where its items are split (issue 13,
/// nineteenth pass: NDJSON after a restart from the answer's entry, not a walk through its page files).
///
/// A merged body is `[` item `,` item … `]`, with every item exactly the bytes NDJSON sends on its line (both are
/// spliced from the same compacted items, `MergedJSONBody` and `NDJSONBody`). So the lines are the merged body without
/// its first byte, each separating comma and the closing `]` turned into a newline: one byte shorter, with no item
/// copied or scanned per request. The separators are found once, when the answer's entry is written (`separators`).
package enum MergedAnswerLines {
    /// How many bytes of lines are read and sent at a time.
    package static let chunkBytes = 256 << 10

    /// The offsets, in `body` (a merged answer of `items` items), of the commas that separate its items, in order; nil
    /// when `body` is not such an array of exactly `items` items (it is then never sent as lines). Scans every byte:
    /// done once, when the answer's entry is written, off the requests' path.
    package static func separators(ofMerged body: [UInt8], items: Int) -> [Int]? {
        guard body.count >= 2, body.first == UInt8(ascii: "["), body.last == UInt8(ascii: "]") else { return nil }
        if items == 0 { return body.count == 2 ? [] : nil }
        var found: [Int] = []
        found.reserveCapacity(items - 1)
        var (depth, inString, escaped) = (0, false, false)
        body.withUnsafeBufferPointer { bytes in
            for index in 1..<(bytes.count - 1) {
                let byte = bytes[index]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                case UInt8(ascii: ",") where depth == 0: found.append(index)
                default: break
                }
            }
        }
        guard found.count == items - 1, depth == 0, !inString else { return nil }
        return found
    }

    /// How long the lines of a merged body of `mergedLength` bytes and `items` items are.
    package static func length(mergedLength: Int, items: Int) -> Int { items == 0 ? 0 : mergedLength - 1 }

    /// A part of the lines is not what the merged body's separators say it is (the file holds other bytes now).
    package struct Mismatch: Error {}

    /// Turns `chunk`, the merged body's bytes from `start`, into lines in place: each separator from `separators[next]`
    /// on within it, and the closing bracket at `mergedLength - 1`, become newlines; `next` moves past them.
    /// - Throws: `Mismatch` when a byte there is not the comma or bracket the merged body has there.
    package static func makeLines(
        _ chunk: inout [UInt8], at start: Int, separators: [Int], next: inout Int, mergedLength: Int
    ) throws(Mismatch) {
        let made = chunk.withUnsafeMutableBytes { bytes in
            Result { () throws(Mismatch) in try makeLines(bytes, at: start, separators: separators, next: &next, mergedLength: mergedLength) }
        }
        try made.get()
    }

    /// `makeLines` over the bytes of `chunk` (the merged body's from `start`), in place.
    static func makeLines(
        _ chunk: UnsafeMutableRawBufferPointer, at start: Int, separators: [Int], next: inout Int, mergedLength: Int
    ) throws(Mismatch) {
        let end = start + chunk.count
        while next < separators.count, separators[next] < end {
            let index = separators[next] - start
            guard index >= 0, chunk[index] == UInt8(ascii: ",") else { throw Mismatch() }
            chunk[index] = UInt8(ascii: "\n")
            next += 1
        }
        if end == mergedLength, !chunk.isEmpty {
            guard chunk[chunk.count - 1] == UInt8(ascii: "]") else { throw Mismatch() }
            chunk[chunk.count - 1] = UInt8(ascii: "\n")
        }
    }

    /// The lines of a merged body held in its entry's file, in chunks of `chunkBytes` (`next`).
    package struct FileChunks {
        let file: HeldEntryFile
        let separators: [Int]
        let mergedLength: Int
        /// Where the next chunk starts in the merged body.
        private var offset: Int
        private var nextSeparator = 0
        /// The chunk handed out last, read into again for the next one: one buffer for the whole answer, not a fresh
        /// 256 KB array a chunk (twentieth pass). The sender lets go of a chunk before it asks for the next, so the
        /// array is then this struct's alone and is written in place (were it still shared, it would be copied first).
        private var buffer: [UInt8] = []

        /// The lines of the merged body of `mergedLength` bytes and `items` items held in `file`'s body.
        package init(file: HeldEntryFile, mergedLength: Int, items: Int, separators: [Int]) {
            self.file = file
            self.separators = separators
            self.mergedLength = mergedLength
            // The first byte (`[`) is no line's; an answer of no items has no lines at all.
            offset = items == 0 ? mergedLength : 1
        }

        /// The next chunk of lines, nil after the last.
        /// - Throws: `Mismatch` when the file cannot be read, or was written in place since it was checked, or holds
        ///   other bytes where the separators are (the store is told of those two: it removes the entry).
        package mutating func next() throws(Mismatch) -> [UInt8]? {
            guard offset < mergedLength else { return nil }
            let end = min(mergedLength, offset + MergedAnswerLines.chunkBytes)
            let range = offset..<end
            // Sized to the chunk without moving or zeroing what is kept: only the last chunk of an answer is shorter.
            if buffer.count != range.count {
                buffer = [UInt8](unsafeUninitializedCapacity: range.count) { _, initialized in initialized = range.count }
            }
            let (file, separators, mergedLength) = (file, separators, mergedLength)
            var next = nextSeparator
            let made = buffer.withUnsafeMutableBytes { chunk in
                Result { () throws(Mismatch) in
                    guard file.readBody(range, into: chunk) == range.count else { throw Mismatch() }
                    do throws(Mismatch) {
                        guard file.isUnchanged() else { throw Mismatch() }
                        try MergedAnswerLines.makeLines(chunk, at: range.lowerBound, separators: separators, next: &next, mergedLength: mergedLength)
                    } catch {
                        file.reportChanged()
                        throw error
                    }
                }
            }
            try made.get()
            nextSeparator = next
            offset = end
            return buffer
        }
    }
}
