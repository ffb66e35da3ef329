import Foundation
import PageProxyCore
import Testing

@testable import PageProxyServer

/// The head `ResponseWriter` puts before every answer: the responder's fields, then its own `Date`, `Server` and
/// `Connection`, each once, whichever way the answer is sent.
@Suite struct ResponseWriterHeadTests {
    /// The head's field lines as (name, value) pairs, in order, and the status line.
    private func head(of bytes: [UInt8]) -> (statusLine: String, fields: [(String, String)]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let section = text.components(separatedBy: "\r\n\r\n")[0]
        var lines = section.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let fields = lines.map { line -> (String, String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (String(line[..<colon]), String(line[colon...].dropFirst().drop { $0 == " " }))
        }
        return (statusLine, fields)
    }

    private func values(_ name: String, in fields: [(String, String)]) -> [String] {
        fields.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    private func writer(_ sink: MemoryResponseSink, version: HTTPVersion = .http1_1, keepsAlive: Bool = true, draining: Bool = false) -> ResponseWriter {
        let request = HTTPRequestHead(method: .get, target: "/", version: version, headers: ["Host": "x"])
        return ResponseWriter(sink: sink, request: request, keepsAlive: keepsAlive, writeTimeout: .seconds(5), isDraining: { draining })
    }

    @Test("a kept-alive HTTP/1.1 answer: the responder's fields, then Date and Server, no Connection")
    func keptAliveAnswer() async throws {
        let sink = MemoryResponseSink()
        try await writer(sink).send(.ok, headers: ["Content-Type": "application/json"], body: Array("[]".utf8))
        let (statusLine, fields) = head(of: sink.bytes)
        #expect(statusLine == "HTTP/1.1 200 OK")
        #expect(fields.map(\.0) == ["Content-Type", "Content-Length", "Date", "Server"])
        #expect(values("Server", in: fields) == ["PageProxy"])
        #expect(values("Content-Length", in: fields) == ["2"])
        #expect(HTTPDate.parse(values("Date", in: fields)[0]) != nil)
        #expect(String(decoding: sink.bytes, as: UTF8.self).hasSuffix("\r\n\r\n[]"))
    }

    @Test("Connection: close when the connection will not be reused, keep-alive for HTTP/1.0, close when draining")
    func connectionField() async throws {
        let closing = MemoryResponseSink()
        try await writer(closing, keepsAlive: false).send(.ok, body: [])
        #expect(values("Connection", in: head(of: closing.bytes).fields) == ["close"])

        let old = MemoryResponseSink()
        try await writer(old, version: .http1_0).send(.ok, body: [])
        #expect(values("Connection", in: head(of: old.bytes).fields) == ["keep-alive"])

        let draining = MemoryResponseSink()
        let drainingWriter = writer(draining, draining: true)
        try await drainingWriter.send(.ok, body: [])
        #expect(values("Connection", in: head(of: draining.bytes).fields) == ["close"])
        #expect(!drainingWriter.keepsAlive)
    }

    @Test("a responder's own Server is kept; its Date, and its Connection where the writer decides one, are replaced")
    func respondersOwnFields() async throws {
        let sink = MemoryResponseSink()
        try await writer(sink, keepsAlive: false).send(
            .ok, headers: ["Server": "mock", "Date": "Thu, 01 Jan 1970 00:00:00 GMT", "Connection": "keep-alive"], body: [])
        let fields = head(of: sink.bytes).fields
        #expect(values("Server", in: fields) == ["mock"])
        #expect(values("Connection", in: fields) == ["close"])
        let dates = values("Date", in: fields)
        #expect(dates.count == 1)
        #expect(dates.first != "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test("a prepared answer: status line, per-request fields, Date, Server, Connection, then the prepared lines and body")
    func preparedAnswer() async throws {
        let sink = MemoryResponseSink()
        let prepared = Array("ETag: \"x\"\r\nContent-Length: 2\r\n".utf8)
        try await writer(sink, keepsAlive: false).send(.ok, prepared: prepared, body: Array("[]".utf8), perRequest: ["Age": "0"])
        #expect(sink.writes == 1)
        let (statusLine, fields) = head(of: sink.bytes)
        #expect(statusLine == "HTTP/1.1 200 OK")
        #expect(fields.map(\.0) == ["Age", "Date", "Server", "Connection", "ETag", "Content-Length"])
        #expect(values("Connection", in: fields) == ["close"])
        #expect(String(decoding: sink.bytes, as: UTF8.self).hasSuffix("Content-Length: 2\r\n\r\n[]"))
    }

    @Test("a streamed answer's head carries Transfer-Encoding and the writer's fields")
    func streamedHead() async throws {
        let sink = MemoryResponseSink()
        let streaming = writer(sink)
        try await streaming.beginStream(.ok, headers: ["Content-Type": "application/x-ndjson"])
        try await streaming.endStream()
        let fields = head(of: sink.bytes).fields
        #expect(fields.map(\.0) == ["Content-Type", "Transfer-Encoding", "Date", "Server"])
    }
}
