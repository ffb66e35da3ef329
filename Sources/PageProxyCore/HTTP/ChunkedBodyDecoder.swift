/// Incrementally decodes a chunked body (RFC 9112 §7.1) from a buffer the caller drops consumed bytes from.
/// Shared by the request parser (which discards the data) and the response parser (which keeps it).
package struct ChunkedBodyDecoder: Sendable {
    package enum Failure: Error, Equatable {
        case invalidChunkSize
        case invalidChunkFraming
        case bodyTooLarge
        case trailersTooLarge
        case tooManyTrailers
        case bareCarriageReturn
    }

    package enum Step: Equatable {
        case needMoreData
        /// A trailer field line (without its line ending) for the caller to check; it is then dropped.
        case trailer(Range<Int>)
        /// The last chunk and the trailer section have been read.
        case done
    }

    private enum State {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    /// Longest chunk-size line, extensions included.
    package static let maxSizeLineBytes = 4096

    private let maxBodyBytes: Int
    private let maxTrailerBytes: Int
    private let maxTrailerCount: Int
    private var state = State.size
    private var reader = HTTPLineReader()
    private var trailerBytes = 0
    private var trailerCount = 0
    /// Decoded data bytes so far.
    package private(set) var bodyBytes = 0

    package init(maxBodyBytes: Int, maxTrailerBytes: Int, maxTrailerCount: Int) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTrailerBytes = maxTrailerBytes
        self.maxTrailerCount = maxTrailerCount
    }

    /// Decodes from `cursor` on, advancing it past consumed bytes; appends chunk data to `body` when `keep` is set.
    package mutating func decode(
        _ buffer: [UInt8], cursor: inout Int, into body: inout [UInt8], keep: Bool
    ) throws(Failure) -> Step {
        while true {
            switch state {
            case .size:
                guard let line = reader.nextLine(in: buffer, from: cursor) else {
                    if reader.pendingLength(in: buffer, from: cursor) > Self.maxSizeLineBytes { throw .invalidChunkSize }
                    return .needMoreData
                }
                if HTTPLineReader.containsBareCR(buffer, line.content) { throw .bareCarriageReturn }
                if line.content.count > Self.maxSizeLineBytes { throw .invalidChunkSize }
                let size = try Self.parseSizeLine(buffer[line.content])
                cursor = line.next
                if size == 0 {
                    state = .trailers
                    continue
                }
                if size > maxBodyBytes - bodyBytes { throw .bodyTooLarge }
                bodyBytes += size
                state = .data(remaining: size)
            case .data(let remaining):
                let count = min(remaining, buffer.count - cursor)
                if keep { body.append(contentsOf: buffer[cursor..<(cursor + count)]) }
                cursor += count
                guard count == remaining else {
                    state = .data(remaining: remaining - count)
                    return .needMoreData
                }
                state = .dataEnd
            case .dataEnd:
                // RFC 9112 §7.1 — chunk-data is followed by CRLF; anything else means the size lied.
                guard cursor < buffer.count else { return .needMoreData }
                guard buffer[cursor] == HTTPLineReader.cr else { throw .invalidChunkFraming }
                guard cursor + 1 < buffer.count else { return .needMoreData }
                guard buffer[cursor + 1] == HTTPLineReader.lf else { throw .invalidChunkFraming }
                cursor += 2
                state = .size
            case .trailers:
                guard let line = reader.nextLine(in: buffer, from: cursor) else {
                    if trailerBytes + reader.pendingLength(in: buffer, from: cursor) > maxTrailerBytes { throw .trailersTooLarge }
                    return .needMoreData
                }
                if HTTPLineReader.containsBareCR(buffer, line.content) { throw .bareCarriageReturn }
                cursor = line.next
                if line.content.isEmpty {
                    state = .done
                    return .done
                }
                // RFC 9112 §7.1.2 — the trailer section is bounded like the header section.
                trailerCount += 1
                if trailerCount > maxTrailerCount { throw .tooManyTrailers }
                trailerBytes += line.content.count
                if trailerBytes > maxTrailerBytes { throw .trailersTooLarge }
                return .trailer(line.content)
            case .done:
                return .done
            }
        }
    }

    /// RFC 9112 §7.1 — `chunk-size [ chunk-ext ]`, chunk-size = 1*HEXDIG: no sign, no "0x", no leading whitespace,
    /// and whitespace after the size only before a ";" extension (BWS); overflow is an error.
    private static func parseSizeLine(_ line: ArraySlice<UInt8>) throws(Failure) -> Int {
        var index = line.startIndex
        var size = 0
        while index < line.endIndex, let digit = hexValue(line[index]) {
            let (shifted, overflow1) = size.multipliedReportingOverflow(by: 16)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { throw .invalidChunkSize }
            size = sum
            index += 1
        }
        guard index > line.startIndex else { throw .invalidChunkSize }
        var rest = line[index...]
        while let first = rest.first, HTTPFieldSyntax.isWhitespace(first) { rest.removeFirst() }
        if rest.count < line.endIndex - index {
            guard rest.first == UInt8(ascii: ";") else { throw .invalidChunkSize }
        }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else { throw .invalidChunkSize }
        // Chunk extensions are ignored, but they may not hide control characters.
        guard rest.allSatisfy(HTTPFieldSyntax.isFieldValueByte) else { throw .invalidChunkSize }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
