import Foundation
import Glibc

/// A memoized merged answer kept in the cache directory as an entry of its own (issue 13: "Large answers memoized
/// too", sixteenth pass), so that the first repeat after a restart is sent from one file instead of walked through
/// hundreds: what the answer says besides its body, and the manifest of the page entry files it was built from.
///
/// It is never a second truth (DESIGN.md): it is used only while every page entry of its manifest is still the very
/// file it was built from (`HeldEntryFile.Stamp.isSameVersion`: device, inode, size and modification time, which
/// PageProxy's refresh of the access time leaves — a rewrite by a 200, a 304's refresh, a removal or an eviction each
/// replace or unlink the file, and so drop the answer), and only until the first of those pages would be revalidated
/// (`freshUntil`).
package struct AnswerEntry: Sendable, Equatable {
    /// A page the answer was built from: its entry's key and the identity of its file then.
    package struct Page: Sendable, Equatable {
        package var key: CacheKey
        package var file: HeldEntryFile.Stamp

        package init(key: CacheKey, file: HeldEntryFile.Stamp) {
            self.key = key
            self.file = file
        }
    }

    package var etag: String
    package var freshUntil: Date
    package var pages: Int
    package var items: Int
    /// The client's cap cut the walk short (`PageProxy-Truncated`).
    package var truncated: Bool
    /// A page's upstream said `Cache-Control: private`.
    package var upstreamPrivate: Bool
    /// The fields the walk added (`PageProxy-Scheme`, `PageProxy-Total`, a window's `Link` …).
    package var headers: HTTPHeaders
    package var manifest: [Page]
    /// Where the body's items are split: the offsets of the commas between them (`MergedAnswerLines.separators`), so
    /// that NDJSON of the same items is sent from the same body (nineteenth pass); nil when not known (then it is not).
    package var itemSeparators: [Int]?

    package init(
        etag: String, freshUntil: Date, pages: Int, items: Int, truncated: Bool, upstreamPrivate: Bool, headers: HTTPHeaders, manifest: [Page],
        itemSeparators: [Int]? = nil
    ) {
        self.itemSeparators = itemSeparators
        self.etag = etag
        self.freshUntil = freshUntil
        self.pages = pages
        self.items = items
        self.truncated = truncated
        self.upstreamPrivate = upstreamPrivate
        self.headers = headers
        self.manifest = manifest
    }
}

/// The body of an answer's cache entry (`CacheEntryFormat` wraps it: its head names the key and is checksummed, its
/// length fields say how long the file is):
///
/// ```
/// offset  size  field
///      0     4  magic "PPMA"
///      4     4  format version (2), big-endian
///      8     4  head length N
///     12     8  body length B
///     20     8  XXH64 of the N head bytes
///     28     N  head: ETag (string32), fresh-until ms (8), pages (8), items (8), flags (1: bit 0 truncated, bit 1
///               upstream private), field count (2), fields (name, value: string32 each), page count (4), per page:
///               key hex (64), device, inode, size, mtime ns, ctime ns, links (8 each); separators known (1: 0 or
///               1), then if known: count (4), each separator's distance from the one before (from 0 for the first; 4)
///   28+N     B  the answer's body, as sent
/// ```
package enum AnswerEntryFormat {
    package static let magic: [UInt8] = Array("PPMA".utf8)
    /// 2 added the item separators (nineteenth pass); an entry of version 1 is removed when found, and walked again.
    package static let version: UInt32 = 2
    package static let prefixLength = 28
    /// The most pages a manifest may name (a corrupted count must not ask for an absurd allocation).
    static let maxPages = 1 << 20

    package enum Invalid: Error, Equatable {
        case badMagic
        case unsupportedVersion(UInt32)
        case lengthMismatch
        case checksumMismatch
        case badHead
    }

    /// The head (prefix and head) of `answer`, for a body of `bodyLength` bytes that follows it.
    package static func encodeHead(_ answer: AnswerEntry, bodyLength: Int) -> [UInt8] {
        var head = ByteWriter()
        head.appendString32(answer.etag)
        head.append(UInt64(bitPattern: Int64((answer.freshUntil.timeIntervalSince1970 * 1000).rounded(.down))))
        head.append(UInt64(answer.pages))
        head.append(UInt64(answer.items))
        head.append(UInt8(answer.truncated ? 1 : 0) | UInt8(answer.upstreamPrivate ? 2 : 0))
        let fields = Array(answer.headers.prefix(Int(UInt16.max)))
        head.append(UInt16(fields.count))
        for field in fields {
            head.appendString32(field.name)
            head.appendString32(field.value)
        }
        head.append(UInt32(answer.manifest.count))
        for page in answer.manifest {
            head.bytes.append(contentsOf: page.key.hex.utf8)
            let file = page.file
            for value in [file.device, file.inode, UInt64(file.size), UInt64(bitPattern: file.modified), UInt64(bitPattern: file.changed), file.links] {
                head.append(value)
            }
        }
        appendSeparators(answer.itemSeparators, to: &head)
        var prefix = ByteWriter()
        prefix.bytes.reserveCapacity(prefixLength + head.bytes.count)
        prefix.bytes.append(contentsOf: magic)
        prefix.append(version)
        prefix.append(UInt32(head.bytes.count))
        prefix.append(UInt64(bodyLength))
        prefix.append(XXHash64.hash(head.bytes))
        prefix.bytes.append(contentsOf: head.bytes)
        return prefix.bytes
    }

    /// Whether `entry` is a merged answer's own (`AnswerEntries.write`: no fields, must revalidate, and a body that is
    /// an answer's prefix, head and body, exactly), from its first bytes alone. A page whose upstream sent that, with
    /// no fields, would count as one too: only the warm-up asks, and it then leaves that page to its lookup.
    package static func isAnswer(_ entry: CacheEntry) -> Bool {
        guard entry.headers.count == 0, entry.mustRevalidate, entry.body.count >= prefixLength,
            let lengths = try? lengths(of: entry.body.prefix(prefixLength))
        else { return false }
        return lengths.head + lengths.body == entry.body.count
    }

    /// How long the head of an answer whose first bytes are `prefix` is (prefix included), and how long its body; nil
    /// when `prefix` is too short to say or is no answer's.
    package static func lengths(of prefix: ArraySlice<UInt8>) throws(Invalid) -> (head: Int, body: Int)? {
        guard prefix.count >= prefixLength else { return nil }
        guard prefix.prefix(4).elementsEqual(magic) else { throw .badMagic }
        var reader = ByteReader(bytes: Array(prefix.prefix(prefixLength)), offset: 4)
        let version = reader.uint32() ?? 0
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard let headLength = reader.uint32(), let bodyLength = reader.uint64(), headLength <= UInt32(CacheEntryFormat.maxHeaderLength),
            bodyLength <= UInt64(Int.max / 2)
        else { throw .lengthMismatch }
        return (prefixLength + Int(headLength), Int(bodyLength))
    }

    /// The answer a head (prefix and head, exactly `lengths(of:)`'s `head` bytes) describes, its checksum checked.
    package static func decodeHead(_ bytes: ArraySlice<UInt8>) throws(Invalid) -> AnswerEntry {
        guard let (headLength, _) = try lengths(of: bytes), bytes.count == headLength else { throw .lengthMismatch }
        let all = Array(bytes)
        var prefix = ByteReader(bytes: all, offset: 20)
        let sum = all.withUnsafeBytes { XXHash64.hash(UnsafeRawBufferPointer(rebasing: $0[prefixLength...])) }
        guard prefix.uint64() == sum else { throw .checksumMismatch }
        var head = ByteReader(bytes: all, offset: prefixLength)
        guard let etag = head.string32(), let freshUntil = head.uint64(), let pages = head.uint64(), let items = head.uint64(),
            let flags = head.uint8(), let fieldCount = head.uint16()
        else { throw .badHead }
        var headers = HTTPHeaders()
        for _ in 0..<fieldCount {
            guard let name = head.string32(), let value = head.string32() else { throw .badHead }
            headers.add(name, value)
        }
        guard let pageCount = head.uint32(), Int(pageCount) <= maxPages, pages <= UInt64(maxPages), items <= UInt64(Int.max) else { throw .badHead }
        var manifest: [AnswerEntry.Page] = []
        manifest.reserveCapacity(Int(pageCount))
        for _ in 0..<pageCount {
            guard let hex = head.bytes(64), let key = CacheKey(hex: String(decoding: hex, as: UTF8.self)), let device = head.uint64(),
                let inode = head.uint64(), let size = head.uint64(), let modified = head.uint64(), let changed = head.uint64(),
                let links = head.uint64(), size <= UInt64(Int.max)
            else { throw .badHead }
            var file = HeldEntryFile.Stamp(stat())
            (file.device, file.inode, file.size) = (device, inode, Int(size))
            (file.modified, file.changed, file.links) = (Int64(bitPattern: modified), Int64(bitPattern: changed), links)
            manifest.append(AnswerEntry.Page(key: key, file: file))
        }
        guard let (_, bodyLength) = try lengths(of: bytes) else { throw .badHead }
        let separators = try readSeparators(&head, items: Int(items), bodyLength: bodyLength)
        guard head.offset == all.count else { throw .badHead }
        return AnswerEntry(
            etag: etag, freshUntil: Date(timeIntervalSince1970: TimeInterval(Int64(bitPattern: freshUntil)) / 1000), pages: Int(pages),
            items: Int(items), truncated: flags & 1 != 0, upstreamPrivate: flags & 2 != 0, headers: headers, manifest: manifest,
            itemSeparators: separators)
    }

    /// Writes the item separators (nil: not known; each as its distance from the one before, none of them past 4 GiB).
    private static func appendSeparators(_ separators: [Int]?, to head: inout ByteWriter) {
        var previous = 0
        let distances = separators.flatMap { separators in
            separators.map { separator -> Int in
                defer { previous = separator }
                return separator - previous
            }
        }
        guard let distances, distances.allSatisfy({ $0 > 0 && $0 <= Int(UInt32.max) }) else {
            head.append(UInt8(0))
            return
        }
        head.append(UInt8(1))
        head.append(UInt32(distances.count))
        head.bytes.reserveCapacity(head.bytes.count + 4 * distances.count)
        for distance in distances { head.append(UInt32(distance)) }
    }

    /// Reads the item separators of a body of `items` items and `bodyLength` bytes: nil when not known; a count other
    /// than one between every two items, or one not inside the body after the one before, is a bad head.
    private static func readSeparators(_ head: inout ByteReader, items: Int, bodyLength: Int) throws(Invalid) -> [Int]? {
        guard let known = head.uint8(), known <= 1 else { throw .badHead }
        guard known == 1 else { return nil }
        guard let count = head.uint32(), Int(count) == max(0, items - 1), Int(count) <= (head.end - head.offset) / 4 else { throw .badHead }
        guard let run = head.bytes(4 * Int(count)) else { throw .badHead }
        // Read in one pass over the bytes, not an integer read at a time (tens of thousands of items: ~1 ms that way).
        var separators = [Int](repeating: 0, count: Int(count))
        let valid = run.withUnsafeBufferPointer { bytes in
            separators.withUnsafeMutableBufferPointer { separators in
                var previous = 0
                for index in separators.indices {
                    let at = 4 * index
                    let distance = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                    guard distance > 0 else { return false }
                    previous += distance
                    separators[index] = previous
                }
                return previous < bodyLength - 1
            }
        }
        guard valid else { throw .badHead }
        return separators
    }
}
