import Foundation

/// Reads one HTTP/1.1 response from raw bytes with nothing from PageProxy: the status line, the header lines up to
/// the empty line, then a `Content-Length` body or chunked data (RFC 9112 §6, §7.1). Tests check the product's
/// framing with it, so that a fault in the product's own parser cannot hide a fault in its writer.
struct RawResponseBytes {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    let status: Int
    /// Header fields in order, names as sent.
    let fields: [(name: String, value: String)]
    let body: [UInt8]
    /// Whether a chunked body ended with its last chunk (true for a `Content-Length` body read whole).
    let isComplete: Bool
    /// Bytes after the response (a pipelined answer, or bytes that should not be there).
    let trailing: [UInt8]

    /// The bytes hold a response's head but not all of its body yet.
    struct Incomplete: Error {}

    /// - Parameter requireComplete: throw `Incomplete` rather than return a body that has not fully arrived (a
    ///   close-delimited body is complete only at the end of the stream, which the caller knows, not this reader).
    init(_ bytes: [UInt8], isHead: Bool = false, requireComplete: Bool = false) throws {
        let crlf: [UInt8] = [13, 10]
        guard let headEnd = Self.find([13, 10, 13, 10], in: bytes, from: 0) else {
            throw requireComplete ? Incomplete() as any Error : Malformed(description: "no end of head")
        }
        let lines = Self.split(Array(bytes[..<headEnd]), by: crlf).map { String(decoding: $0, as: UTF8.self) }
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let code = Int(statusLine[1]) else {
            throw Malformed(description: "status line \(lines.first ?? "")")
        }
        status = code
        let parsed: [(name: String, value: String)] = try lines.dropFirst().map { line in
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(description: "field line \(line)") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"]))
        }
        fields = parsed
        var index = headEnd + 4
        func lookup(_ name: String) -> String? { parsed.first { $0.name.lowercased() == name }?.value }
        // RFC 9112 §6.3 rule 1 — HEAD, 1xx, 204 and 304 responses end at the header section.
        if isHead || code == 304 || code == 204 || (100..<200).contains(code) {
            (body, isComplete) = ([], true)
        } else if lookup("transfer-encoding") == "chunked" {
            var data: [UInt8] = []
            var complete = false
            while let lineEnd = Self.find(crlf, in: bytes, from: index) {
                guard let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16) else {
                    throw Malformed(description: "chunk size")
                }
                index = lineEnd + 2
                if size == 0 {
                    guard let end = Self.find(crlf, in: bytes, from: index) else { break }
                    // Trailer lines, then the empty line.
                    var next = end
                    while next != index {
                        index = next + 2
                        guard let following = Self.find(crlf, in: bytes, from: index) else { throw Malformed(description: "trailers") }
                        next = following
                    }
                    index += 2
                    complete = true
                    break
                }
                guard index + size + 2 <= bytes.count else { data += bytes[index...]; index = bytes.count; break }
                data += bytes[index..<(index + size)]
                index += size + 2
            }
            (body, isComplete) = (data, complete)
        } else if let length = lookup("content-length").flatMap({ Int($0) }) {
            let end = min(bytes.count, index + length)
            (body, isComplete) = (Array(bytes[index..<end]), end == index + length)
            index = end
        } else {
            if requireComplete { throw Incomplete() }
            (body, isComplete) = (Array(bytes[index...]), true)
            index = bytes.count
        }
        if requireComplete && !isComplete { throw Incomplete() }
        trailing = Array(bytes[min(index, bytes.count)...])
    }

    /// The first value of `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            guard let candidate = bytes[index...(bytes.count - needle.count)].firstIndex(of: first) else { return nil }
            if bytes[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    private static func split(_ bytes: [UInt8], by separator: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = 0
        while let found = find(separator, in: bytes, from: start) {
            parts.append(Array(bytes[start..<found]))
            start = found + separator.count
        }
        parts.append(Array(bytes[start...]))
        return parts
    }
}
