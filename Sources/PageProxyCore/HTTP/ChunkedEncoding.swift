/// Writes the chunked transfer coding (RFC 9112 §7.1).
package enum ChunkedEncoding {
    /// Appends `chunk-size CRLF chunk-data CRLF`; nothing for empty input, since a zero size would end the body.
    package static func appendChunk(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.append(contentsOf: sizeLine(bytes.count))
        output.append(contentsOf: bytes)
        output.append(contentsOf: crlf)
    }

    /// `chunk-size CRLF`: what goes before a chunk's data (and `crlf` after it), for a writer that sends the three
    /// parts without joining them.
    package static func sizeLine(_ count: Int) -> [UInt8] {
        Array((String(count, radix: 16) + "\r\n").utf8)
    }

    /// `last-chunk` with an empty trailer section: "0\r\n\r\n".
    package static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    package static let crlf: [UInt8] = [0x0D, 0x0A]
}
