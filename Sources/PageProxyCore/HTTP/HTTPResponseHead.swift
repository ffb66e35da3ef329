/// A status line and header section, to send (serialized) or as received from upstream.
package struct HTTPResponseHead: Sendable {
    package var status: HTTPStatus
    package var version: HTTPVersion = .http1_1
    package var headers: HTTPHeaders

    package init(status: HTTPStatus, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.version = version
        self.headers = headers
    }

    /// RFC 9112 §4 — `HTTP-version SP 3DIGIT SP [reason-phrase] CRLF`, then each `name: value CRLF`, then CRLF.
    package func serialized() -> [UInt8] {
        serialized(reservingExtra: 0) { _ in }
    }

    /// `serialized()` with more field lines after `headers`, appended in place by `appendLines` (each
    /// `name: value CRLF`) before the empty line that ends the section: one buffer, sized once for `extra` more bytes.
    package func serialized(reservingExtra extra: Int, then appendLines: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + headers.count * 48 + extra)
        Self.appendUTF8(version.description, to: &bytes)
        bytes.append(0x20)
        let code = min(max(status.code, 0), 999)
        bytes.append(UInt8(ascii: "0") + UInt8(code / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(code % 10))
        // The SP before the reason phrase is required even when the phrase is empty.
        bytes.append(0x20)
        Self.appendUTF8(status.reasonPhrase, to: &bytes)
        bytes.append(contentsOf: [0x0D, 0x0A])
        Self.appendFieldLines(headers, to: &bytes)
        appendLines(&bytes)
        bytes.append(0x0D)
        bytes.append(0x0A)
        return bytes
    }

    /// Each field as `name: value CRLF`, without the empty line that ends a header section.
    package static func fieldLines(_ headers: HTTPHeaders) -> [UInt8] {
        var bytes: [UInt8] = []
        appendFieldLines(headers, to: &bytes)
        return bytes
    }

    private static func appendFieldLines(_ headers: HTTPHeaders, to bytes: inout [UInt8]) {
        for (name, value) in headers { appendFieldLine(name, value, to: &bytes) }
    }

    /// Appends `name: value CRLF`.
    package static func appendFieldLine(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        appendUTF8(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(0x20)
        appendUTF8(value, to: &bytes)
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    /// Appends `text`'s UTF-8 in one copy (issue 13: byte by byte, serializing a head was 2 % of a small answer).
    private static func appendUTF8(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// RFC 9112 §9.3 — the same persistence rule as for requests.
    package var isKeepAlive: Bool {
        headers.isKeepAlive(version: version)
    }
}
