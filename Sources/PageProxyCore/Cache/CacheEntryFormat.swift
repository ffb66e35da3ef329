import Foundation

/// The bytes of a cache entry file, and the checks that make a torn or corrupted file a miss.
///
/// ```
/// offset  size  field
///      0     4  magic "PPCE"
///      4     4  format version (2), big-endian
///      8     4  header length H, big-endian
///     12     8  body length B, big-endian
///     20     8  XXH64 of the H header bytes
///     28     H  header: key hex (64), status (2), stored-at ms (8), fresh-until ms (8), flags (1: bit 0
///               must-revalidate, bit 1 the lifetime is the upstream's — older entries have it clear, and are
///               judged by each route's TTL), XXH64 of the body (8), field count (2), then per field: name length (2), name, value length (4), value;
///               then the scan section (see CacheEntryFormat+Scan.swift); then, in entries of the binary of
///               4e95722 only, the page's age when stored: tag 1 (1), seconds (4) (read, never written: see below)
///   28+H     B  body
/// ```
/// A file is accepted only if its size is exactly 28 + H + B, its magic and version match, both checksums match,
/// and its header names the key its file name names. The checksums are XXH64, not a cryptographic hash (issue 13):
/// they catch a torn write or a bad disk; the directory is PageProxy's own. Version 1 files (SHA-256, no scan) are
/// `unsupportedVersion`: a miss, deleted like any unreadable entry.
///
/// The page's age when stored (`CacheEntry.initialAge`), when it was not new, is one more field,
/// `PageProxy-Initial-Age: <seconds>` (`initialAgeField`), which decoding takes out of the headers. Every binary of
/// format 2 reads a field it does not know as one more upstream header (unused), so an older process sharing the
/// directory reads such an entry (as age 0) rather than deleting it as corrupt (review21 L2: the tag-1 section after
/// the scan, which older decoders refuse, churned a newer process's entries).
package enum CacheEntryFormat {
    package static let magic: [UInt8] = Array("PPCE".utf8)
    package static let version: UInt32 = 2
    package static let prefixLength = 28
    /// The tag of the optional section after the scan that held the page's age when stored, in 4e95722's entries.
    static let initialAgeTag: UInt8 = 1
    /// The stored field that holds the page's age when stored (`CacheEntry.initialAge`), in whole seconds.
    package static let initialAgeField = "PageProxy-Initial-Age"
    /// Bounds that keep a corrupted length field from asking for an absurd allocation.
    static let maxHeaderLength = 1 << 28

    package enum Invalid: Error, Equatable {
        case tooShort
        case badMagic
        case unsupportedVersion(UInt32)
        case lengthMismatch
        case checksumMismatch
        case badHeader
        case wrongKey
    }

    /// The entry file's bytes: prefix, header and body, written into one array sized for them up front. The header is
    /// written in place after the prefix, whose length and hash fields are filled in once it is known: built apart
    /// and copied, a page of 8 M tiny items held its 72 MB header twice (attack14 M4: 88 + 72 MB at the copy).
    package static func encode(_ entry: CacheEntry, key: CacheKey) -> [UInt8] {
        var file = ByteWriter()
        file.bytes.reserveCapacity(prefixLength + headerCapacity(entry, key: key) + entry.body.count)
        file.bytes.append(contentsOf: magic)
        file.append(version)
        let lengthAt = file.bytes.count
        file.append(UInt32(0))
        file.append(UInt64(entry.body.count))
        let hashAt = file.bytes.count
        file.append(UInt64(0))
        let headerStart = file.bytes.count
        file.bytes.append(contentsOf: key.hex.utf8)
        file.append(UInt16(clamping: entry.status.code))
        file.append(UInt64(bitPattern: milliseconds(entry.storedAt)))
        file.append(UInt64(bitPattern: milliseconds(entry.freshUntil)))
        file.append(UInt8(entry.mustRevalidate ? 1 : 0) | UInt8(entry.lifetimeFromUpstream ? 2 : 0))
        file.append(entry.bodyChecksum)
        let initialAge = UInt32(clamping: entry.initialAge.components.seconds)
        var fields = Array(entry.headers.prefix(Int(UInt16.max) - 1))
        if initialAge > 0 { fields.append((name: initialAgeField, value: String(initialAge))) }
        file.append(UInt16(fields.count))
        for field in fields {
            let name = Array(field.name.utf8.prefix(Int(UInt16.max)))
            let value = Array(field.value.utf8.prefix(Int(UInt32.max)))
            file.append(UInt16(name.count))
            file.bytes.append(contentsOf: name)
            file.append(UInt32(value.count))
            file.bytes.append(contentsOf: value)
        }
        appendScan(entry.scan, bodyCount: entry.body.count, to: &file)
        let headerLength = file.bytes.count - headerStart
        file.set(UInt32(headerLength), at: lengthAt)
        file.set(XXHash64.hash(file.bytes[headerStart...]), at: hashAt)
        file.bytes.append(contentsOf: entry.body)
        return file.bytes
    }

    /// At least the header's length (`encode`): its fixed fields, the header fields, and the scan's items and values.
    private static func headerCapacity(_ entry: CacheEntry, key: CacheKey) -> Int {
        var count = 64 + key.hex.utf8.count + 6 + initialAgeField.utf8.count + 10
        for field in entry.headers { count += 6 + field.name.utf8.count + field.value.utf8.count }
        guard let scan = entry.scan else { return count }
        count += 16 + scan.items.count * 9
        for value in scan.values.values {
            switch value {
            case .string(let text), .number(let text): count += 8 + text.utf8.count
            default: count += 16
            }
        }
        return count
    }

    /// Where an entry file's head (prefix and header) ends, read from its first bytes; nil when they are too few to
    /// say, or the header length is absurd. `CacheFileSystem.read` cuts the file there, so that the body is read into
    /// an array of its own.
    package static func headLength(of prefix: UnsafeRawBufferPointer) -> Int? {
        guard prefix.count >= prefixLength else { return nil }
        let headerLength = (8..<12).reduce(0) { $0 << 8 | Int(prefix[$1]) }
        guard headerLength <= maxHeaderLength else { return nil }
        return prefixLength + headerLength
    }

    /// How long an entry file is by its first bytes (prefix, header and body lengths); nil when they are too few to
    /// say, -1 (no file's size) when the lengths are absurd. A file of another size is corrupt: `CacheFileSystem.read`
    /// reads no more of it (attack15 L2: a file grown to 8 GB past what its header says was read whole into memory
    /// before the length check rejected it).
    package static func fileLength(of prefix: UnsafeRawBufferPointer) -> Int? {
        guard prefix.count >= prefixLength else { return nil }
        let bodyLength = (12..<20).reduce(UInt64(0)) { $0 << 8 | UInt64(prefix[$1]) }
        guard let head = headLength(of: prefix), bodyLength <= UInt64(Int.max - head) else { return -1 }
        return head + Int(bodyLength)
    }

    package static func decode(_ bytes: [UInt8], key: CacheKey) throws(Invalid) -> CacheEntry {
        let cut = min(bytes.withUnsafeBytes(headLength(of:)) ?? bytes.count, bytes.count)
        return try decode(head: Array(bytes[..<cut]), body: Array(bytes[cut...]), key: key)
    }

    /// The entry of a file read in two parts: `head` (prefix and header) and `body`, which the entry keeps as is.
    package static func decode(head: [UInt8], body: [UInt8], key: CacheKey) throws(Invalid) -> CacheEntry {
        try decode(head: head, body: body, bodyLength: body.count, key: key)
    }

    /// The entry of a file whose head alone is at hand (its body, `bodyLength` bytes, read apart:
    /// `CacheFileSystem.readHashingBody`): every check of `decode` but the body's checksum, which is the caller's
    /// (`bodyChecksum` against the XXH64 of the body as read). The entry's body is empty; its stored scan's ranges are
    /// checked against `bodyLength`, and its comma run is worked out from the items' places (`StoredScan.isAdjacentRun`).
    package static func decodeHead(_ head: [UInt8], bodyLength: Int, key: CacheKey) throws(Invalid) -> CacheEntry {
        try decode(head: head, body: nil, bodyLength: bodyLength, key: key)
    }

    private static func decode(head: [UInt8], body: [UInt8]?, bodyLength expectedLength: Int, key: CacheKey) throws(Invalid) -> CacheEntry {
        guard head.count >= prefixLength else { throw .tooShort }
        guard head[0..<4].elementsEqual(magic) else { throw .badMagic }
        var reader = ByteReader(bytes: head, offset: 4)
        let version = reader.uint32() ?? 0
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard let headerLength = reader.uint32(), let bodyLength = reader.uint64(), let headerChecksum = reader.uint64(),
            headerLength <= maxHeaderLength, head.count == prefixLength + Int(headerLength), expectedLength >= 0,
            bodyLength == UInt64(expectedLength), body.map({ $0.count == expectedLength }) ?? true
        else { throw .lengthMismatch }
        let headerEnd = head.count
        let headerSum = head.withUnsafeBytes { XXHash64.hash(UnsafeRawBufferPointer(rebasing: $0[prefixLength...])) }
        guard headerSum == headerChecksum else { throw .checksumMismatch }
        var header = ByteReader(bytes: head, offset: prefixLength, end: headerEnd)
        guard let keyBytes = header.bytes(64), let code = header.uint16(), let storedAt = header.uint64(),
            let freshUntil = header.uint64(), let flags = header.uint8(), let bodyChecksum = header.uint64(), let count = header.uint16()
        else { throw .badHeader }
        guard keyBytes.elementsEqual(key.hex.utf8) else { throw .wrongKey }
        if let body, body.withUnsafeBytes({ XXHash64.hash($0) }) != bodyChecksum { throw .checksumMismatch }
        var headers = HTTPHeaders()
        for _ in 0..<count {
            guard let nameLength = header.uint16(), let name = header.bytes(Int(nameLength)),
                let valueLength = header.uint32(), let value = header.bytes(Int(valueLength))
            else { throw .badHeader }
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        let scan = try readScan(&header, bodyCount: expectedLength, body: body)
        var initialAge: Duration = .zero
        if let text = headers[initialAgeField] {
            // Not this binary's writing (an upstream's own field an older binary kept): read as age 0, not corrupt.
            initialAge = .seconds(UInt32(text) ?? 0)
            headers.remove(initialAgeField)
        }
        if header.offset < headerEnd {
            guard header.uint8() == initialAgeTag, let seconds = header.uint32() else { throw .badHeader }
            initialAge = .seconds(seconds)
        }
        guard header.offset == headerEnd else { throw .badHeader }
        return CacheEntry(
            status: HTTPStatus(code: Int(code)), headers: headers, body: body ?? [],
            storedAt: date(milliseconds: Int64(bitPattern: storedAt)), freshUntil: date(milliseconds: Int64(bitPattern: freshUntil)),
            mustRevalidate: flags & 1 != 0, lifetimeFromUpstream: flags & 2 != 0, initialAge: initialAge, scan: scan,
            bodyChecksum: bodyChecksum)
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(max(min(value, 9e15), -9e15))
    }

    private static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}
