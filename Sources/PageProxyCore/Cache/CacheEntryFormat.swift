import Foundation

/// The bytes of a cache entry file, and the checks that make a torn or corrupted file a miss.
///
/// ```
/// offset  size  field
///      0     4  magic "PPCE"
///      4     4  format version (1), big-endian
///      8     4  header length H, big-endian
///     12     8  body length B, big-endian
///     20    32  SHA-256 of the H + B bytes that follow
///     52     H  header: key hex (64), status (2), stored-at ms (8), fresh-until ms (8), flags (1),
///               field count (2), then per field: name length (2), name, value length (4), value
///   52+H     B  body
/// ```
/// A file is accepted only if its size is exactly 52 + H + B, its magic and version match, its checksum matches,
/// and its header names the key its file name names.
package enum CacheEntryFormat {
    package static let magic: [UInt8] = Array("PPCE".utf8)
    package static let version: UInt32 = 1
    package static let prefixLength = 52
    /// Bounds that keep a corrupted length field from asking for an absurd allocation.
    static let maxHeaderLength = 1 << 20

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
        var header: [UInt8] = []
        header.append(contentsOf: key.hex.utf8)
        append(UInt16(clamping: entry.status.code), to: &header)
        append(UInt64(bitPattern: milliseconds(entry.storedAt)), to: &header)
        append(UInt64(bitPattern: milliseconds(entry.freshUntil)), to: &header)
        header.append(entry.mustRevalidate ? 1 : 0)
        let fields = Array(entry.headers.prefix(Int(UInt16.max)))
        append(UInt16(fields.count), to: &header)
        for field in fields {
            let name = Array(field.name.utf8.prefix(Int(UInt16.max)))
            let value = Array(field.value.utf8.prefix(Int(UInt32.max)))
            append(UInt16(name.count), to: &header)
            header.append(contentsOf: name)
            append(UInt32(value.count), to: &header)
            header.append(contentsOf: value)
        }
        var checksum = SHA256()
        checksum.update(header)
        checksum.update(entry.body)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(prefixLength + header.count + entry.body.count)
        bytes.append(contentsOf: magic)
        append(version, to: &bytes)
        append(UInt32(header.count), to: &bytes)
        append(UInt64(entry.body.count), to: &bytes)
        bytes.append(contentsOf: checksum.finalize())
        bytes.append(contentsOf: header)
        bytes.append(contentsOf: entry.body)
        return bytes
    }

    package static func decode(_ bytes: [UInt8], key: CacheKey) throws(Invalid) -> CacheEntry {
        guard bytes.count >= prefixLength else { throw .tooShort }
        guard Array(bytes[0..<4]) == magic else { throw .badMagic }
        var reader = ByteReader(bytes: bytes, offset: 4)
        let version = reader.uint32() ?? 0
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard let headerLength = reader.uint32(), let bodyLength = reader.uint64(),
            headerLength <= maxHeaderLength, bodyLength <= UInt64(bytes.count),
            bytes.count == prefixLength + Int(headerLength) + Int(bodyLength)
        else { throw .lengthMismatch }
        let stored = bytes[20..<prefixLength]
        let actual = bytes.withUnsafeBytes { buffer in
            var checksum = SHA256()
            checksum.update(UnsafeRawBufferPointer(rebasing: buffer[prefixLength...]))
            return checksum.finalize()
        }
        guard stored.elementsEqual(actual) else { throw .checksumMismatch }
        var header = ByteReader(bytes: bytes, offset: prefixLength)
        let headerEnd = prefixLength + Int(headerLength)
        guard let keyBytes = header.bytes(64), let code = header.uint16(), let storedAt = header.uint64(),
            let freshUntil = header.uint64(), let flags = header.bytes(1), let count = header.uint16()
        else { throw .badHeader }
        guard String(decoding: keyBytes, as: UTF8.self) == key.hex else { throw .wrongKey }
        var headers = HTTPHeaders()
        for _ in 0..<count {
            guard let nameLength = header.uint16(), let name = header.bytes(Int(nameLength)),
                let valueLength = header.uint32(), let value = header.bytes(Int(valueLength))
            else { throw .badHeader }
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        guard header.offset == headerEnd else { throw .badHeader }
        return CacheEntry(
            status: HTTPStatus(code: Int(code)), headers: headers, body: Array(bytes[headerEnd...]),
            storedAt: date(milliseconds: Int64(bitPattern: storedAt)), freshUntil: date(milliseconds: Int64(bitPattern: freshUntil)),
            mustRevalidate: (flags.first ?? 0) & 1 != 0)
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(max(min(value, 9e15), -9e15))
    }

    private static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

/// Reads big-endian integers and byte runs, answering nil past the end instead of trapping.
private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func uint16() -> UInt16? { integer() }
    mutating func uint32() -> UInt32? { integer() }
    mutating func uint64() -> UInt64? { integer() }

    private mutating func integer<T: FixedWidthInteger>() -> T? {
        guard let run = bytes(MemoryLayout<T>.size) else { return nil }
        return run.reduce(T(0)) { $0 << 8 | T($1) }
    }
}
