/// Writes the chunked transfer coding (RFC 9112 §7.1).
package enum ChunkedEncoding {
    /// Appends `chunk-size CRLF chunk-data CRLF`; nothing for empty input, since a zero size would end the body.
    package static func appendChunk(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.append(contentsOf: String(bytes.count, radix: 16).utf8)
        output.append(contentsOf: crlf)
        output.append(contentsOf: bytes)
        output.append(contentsOf: crlf)
    }

    /// `last-chunk` with an empty trailer section: "0\r\n\r\n".
    package static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    private static let crlf: [UInt8] = [0x0D, 0x0A]
}
