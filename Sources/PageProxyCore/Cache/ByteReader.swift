/// Reads big-endian integers and byte runs from a byte array, answering nil past the end instead of trapping.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    /// Reads stop here (exclusive), at most `bytes.count`.
    let end: Int

    init(bytes: [UInt8], offset: Int, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = min(end ?? bytes.count, bytes.count)
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= end - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func uint8() -> UInt8? { integer() }
    mutating func uint16() -> UInt16? { integer() }
    mutating func uint32() -> UInt32? { integer() }
    mutating func uint64() -> UInt64? { integer() }

    /// A length-prefixed (32-bit) UTF-8 string.
    mutating func string32() -> String? {
        guard let length = uint32(), let run = bytes(Int(length)) else { return nil }
        return String(decoding: run, as: UTF8.self)
    }

    private mutating func integer<T: FixedWidthInteger>() -> T? {
        guard let run = bytes(MemoryLayout<T>.size) else { return nil }
        return run.reduce(T(0)) { $0 << 8 | T($1) }
    }
}

/// Appends big-endian integers and length-prefixed strings: the writing side of `ByteReader`.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes `value` over the bytes at `offset`, as `append` would have written it there.
    mutating func set<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        withUnsafeBytes(of: value.bigEndian) { bytes.replaceSubrange(offset..<offset + $0.count, with: $0) }
    }

    /// A length-prefixed (32-bit) UTF-8 string.
    mutating func appendString32(_ text: String) {
        append(UInt32(clamping: text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }
}
