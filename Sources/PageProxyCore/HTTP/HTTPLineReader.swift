/// Finds line endings in a growing buffer without rescanning bytes it has already looked at,
/// so data arriving byte by byte costs linear time (RFC 9112 §2.2: lines end in CRLF or a bare LF).
package struct HTTPLineReader: Sendable {
    /// One complete line: `content` excludes the CRLF or LF, `next` is the index after the LF.
    package struct Line: Sendable {
        package var content: Range<Int>
        package var next: Int
    }

    /// How many bytes of the pending, unterminated line (from the caller's line start) were already searched.
    package private(set) var scanned = 0

    package init() {}

    /// The line starting at `start`, or nil when its LF has not arrived yet.
    /// The caller must keep the line's bytes at `start` (or at the buffer's front after dropping consumed bytes).
    package mutating func nextLine(in buffer: [UInt8], from start: Int) -> Line? {
        let searchFrom = start + scanned
        guard searchFrom <= buffer.count,
            let lf = buffer[searchFrom...].firstIndex(of: HTTPLineReader.lf)
        else {
            scanned = buffer.count - start
            return nil
        }
        scanned = 0
        let end = lf > start && buffer[lf - 1] == HTTPLineReader.cr ? lf - 1 : lf
        return Line(content: start..<end, next: lf + 1)
    }

    /// Length of the pending line, not counting a final CR that may be the start of its CRLF.
    package func pendingLength(in buffer: [UInt8], from start: Int) -> Int {
        let length = buffer.count - start
        return length > 0 && buffer[buffer.count - 1] == HTTPLineReader.cr ? length - 1 : length
    }

    package mutating func reset() {
        scanned = 0
    }

    /// RFC 9112 §2.2 — a CR not followed by LF is invalid; true when `range` holds one.
    package static func containsBareCR(_ buffer: [UInt8], _ range: Range<Int>) -> Bool {
        buffer[range].contains(cr)
    }

    package static let cr = UInt8(ascii: "\r")
    package static let lf = UInt8(ascii: "\n")
}
