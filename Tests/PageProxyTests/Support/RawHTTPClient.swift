import PageProxyCore

/// A test client that speaks HTTP/1.1 over a real socket and keeps the raw bytes, so tests can assert on framing:
/// pipelining, chunked encoding, HEAD, and the missing last chunk of a broken stream.
final class RawHTTPClient {
    struct Response {
        let status: Int
        /// Header fields in order, as sent.
        let fields: [(name: String, value: String)]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The first value of `name`, compared case-insensitively.
        func header(_ name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.value }

        init(_ raw: RawResponseBytes) {
            (status, fields, body) = (raw.status, raw.fields, raw.body)
        }
    }

    enum ClientError: Error {
        case closedBeforeResponse
        case timedOut
    }

    let socket: AsyncSocket
    private var buffer: [UInt8] = []
    /// Every deadline in tests is bounded: no test can hang on a socket. A guard against a hang, not a measure: a
    /// merged answer's first byte follows its whole walk (600 pages in `MergedSpoolTests`), which on a 2-core machine
    /// busy with other work took longer than the 30 s this was (ARCHITECTURE.md, "Tests under load"), and a walk of
    /// 1,000 fetches (`ExplainTests`) longer than the 120 s it was next, at load ~20 (flake23). No test expects it to expire.
    static let timeout = Duration.seconds(600)

    private init(socket: AsyncSocket) {
        self.socket = socket
    }

    static func connect(port: Int, receiveBufferBytes: Int? = nil) async throws -> RawHTTPClient {
        let socket = try await AsyncSocket.connect(
            to: SocketAddress(host: "127.0.0.1", port: port), deadline: .now + timeout, receiveBufferBytes: receiveBufferBytes)
        return RawHTTPClient(socket: socket)
    }

    deinit {
        socket.close()
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await socket.write(bytes, deadline: .now + Self.timeout)
    }

    /// Sends a GET (or another method) with a Host header.
    func request(_ target: String, method: String = "GET", headers: [String: String] = [:]) async throws -> Response {
        try await send(Self.requestText(target, method: method, headers: headers))
        return try await readResponse(method: method == "HEAD" ? .head : .get)
    }

    static func requestText(_ target: String, method: String = "GET", headers: [String: String] = [:]) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    /// Reads and decodes one response, framed by `RawResponseBytes` (which shares no code with PageProxy's own
    /// parser, so a framing fault in the server cannot hide behind the same fault in the client); bytes after it
    /// (a pipelined answer) stay for the next read.
    func readResponse(method: HTTPMethod = .get) async throws -> Response {
        while true {
            if let raw = try? RawResponseBytes(buffer, isHead: method == .head, requireComplete: true) {
                buffer = raw.trailing
                // An interim 1xx answer (100 Continue) comes before the response itself.
                if (100..<200).contains(raw.status) && raw.status != 101 { continue }
                return Response(raw)
            }
            let count = try await socket.read(into: &buffer, maxBytes: 65536, deadline: .now + Self.timeout)
            if count == 0 {
                // The end of the stream completes a close-delimited body; any other unfinished answer is a loss.
                guard let raw = try? RawResponseBytes(buffer, isHead: method == .head), raw.isComplete else {
                    throw ClientError.closedBeforeResponse
                }
                buffer = []
                return Response(raw)
            }
        }
    }

    /// Reads what arrives next, at most `maxBytes`, appending it to the bytes kept; returns the count (0 at the end).
    @discardableResult
    func readSome(maxBytes: Int) async throws -> Int {
        try await socket.read(into: &buffer, maxBytes: maxBytes, deadline: .now + Self.timeout)
    }

    /// Every byte read so far and not yet handed out by another read method.
    var received: [UInt8] { buffer }

    /// Reads raw bytes until the server closes the connection.
    func readUntilClose() async throws -> [UInt8] {
        while try await socket.read(into: &buffer, maxBytes: 65536, deadline: .now + Self.timeout) > 0 {}
        defer { buffer = [] }
        return buffer
    }

    /// Reads raw bytes until `marker` has arrived (or the connection closes), returning all read so far.
    func readUntil(_ marker: String) async throws -> [UInt8] {
        let needle = Array(marker.utf8)
        while !buffer.contains(subsequence: needle) {
            if try await socket.read(into: &buffer, maxBytes: 65536, deadline: .now + Self.timeout) == 0 { break }
        }
        return buffer
    }

    /// Whether the server has closed the connection (reads to the end, bounded by the timeout).
    func isClosedByServer() async -> Bool {
        do {
            while try await socket.read(into: &buffer, maxBytes: 65536, deadline: .now + Self.timeout) > 0 {}
            return true
        } catch {
            return error != .timedOut
        }
    }
}

extension Array where Element == UInt8 {
    /// The bytes after the first blank line (`CRLF CRLF`) of a raw response.
    var bodyAfterHead: [UInt8] {
        let marker = Array("\r\n\r\n".utf8)
        guard count >= 4 else { return [] }
        for start in 0...(count - 4) where Array(self[start..<start + 4]) == marker {
            return Array(self[(start + 4)...])
        }
        return []
    }

    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return needle.isEmpty }
        for start in 0...(count - needle.count) where self[start] == needle[0] {
            if Array(self[start..<start + needle.count]) == needle { return true }
        }
        return false
    }
}
