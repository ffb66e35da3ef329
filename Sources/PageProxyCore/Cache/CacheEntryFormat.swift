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
///               then the scan section (see CacheEntryFormat+Scan.swift)
///   28+H     B  body
/// ```
/// A file is accepted only if its size is exactly 28 + H + B, its magic and version match, both checksums match,
/// and its header names the key its file name names. The checksums are XXH64, not a cryptographic hash (issue 13):
/// they catch a torn write or a bad disk; the directory is PageProxy's own. Version 1 files (SHA-256, no scan) are
/// `unsupportedVersion`: a miss, deleted like any unreadable entry.
package enum CacheEntryFormat {
    package static let magic: [UInt8] = Array("PPCE".utf8)
    package static let version: UInt32 = 2
    package static let prefixLength = 28
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

    package static func encode(_ entry: CacheEntry, key: CacheKey) -> [UInt8] {
        var header = ByteWriter()
        header.bytes.reserveCapacity(256 + (entry.scan?.items.count ?? 0) * 9)
        header.bytes.append(contentsOf: key.hex.utf8)
        header.append(UInt16(clamping: entry.status.code))
        header.append(UInt64(bitPattern: milliseconds(entry.storedAt)))
        header.append(UInt64(bitPattern: milliseconds(entry.freshUntil)))
        header.append(UInt8(entry.mustRevalidate ? 1 : 0) | UInt8(entry.lifetimeFromUpstream ? 2 : 0))
        header.append(entry.bodyChecksum)
        let fields = Array(entry.headers.prefix(Int(UInt16.max)))
        header.append(UInt16(fields.count))
        for field in fields {
            let name = Array(field.name.utf8.prefix(Int(UInt16.max)))
            let value = Array(field.value.utf8.prefix(Int(UInt32.max)))
            header.append(UInt16(name.count))
            header.bytes.append(contentsOf: name)
            header.append(UInt32(value.count))
            header.bytes.append(contentsOf: value)
        }
        appendScan(entry.scan, bodyCount: entry.body.count, to: &header)
        var file = ByteWriter()
        file.bytes.reserveCapacity(prefixLength + header.bytes.count + entry.body.count)
        file.bytes.append(contentsOf: magic)
        file.append(version)
        file.append(UInt32(header.bytes.count))
        file.append(UInt64(entry.body.count))
        file.append(XXHash64.hash(header.bytes))
        file.bytes.append(contentsOf: header.bytes)
        file.bytes.append(contentsOf: entry.body)
        return file.bytes
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
        guard header.offset == headerEnd else { throw .badHeader }
        return CacheEntry(
            status: HTTPStatus(code: Int(code)), headers: headers, body: body ?? [],
            storedAt: date(milliseconds: Int64(bitPattern: storedAt)), freshUntil: date(milliseconds: Int64(bitPattern: freshUntil)),
            mustRevalidate: flags & 1 != 0, lifetimeFromUpstream: flags & 2 != 0, scan: scan, bodyChecksum: bodyChecksum)
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
