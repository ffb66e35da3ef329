import PageProxyCore
import Testing

@Suite struct HTTPMessageTypesTests {
    @Test func serializesResponseHead() {
        var head = HTTPResponseHead(status: .ok)
        head.headers.add("Content-Type", "application/json")
        head.headers.add("Content-Length", "2")
        #expect(head.serialized() == Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n".utf8))
        let custom = HTTPResponseHead(status: HTTPStatus(code: 599), version: .http1_0)
        #expect(custom.serialized() == Array("HTTP/1.0 599 \r\n\r\n".utf8))
        #expect(HTTPResponseHead(status: .requestHeaderFieldsTooLarge).serialized()
            == Array("HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n".utf8))
    }

    @Test func responseHeadKeepAliveFollowsRequestRule() {
        #expect(HTTPResponseHead(status: .ok).isKeepAlive)
        #expect(!HTTPResponseHead(status: .ok, headers: ["Connection": "close"]).isKeepAlive)
        #expect(!HTTPResponseHead(status: .ok, version: .http1_0).isKeepAlive)
        #expect(HTTPResponseHead(status: .ok, version: .http1_0, headers: ["Connection": "Keep-Alive"]).isKeepAlive)
    }

    @Test func standardStatusReasonPhrases() {
        #expect(HTTPStatus.payloadTooLarge.code == 413 && HTTPStatus.payloadTooLarge.reasonPhrase == "Content Too Large")
        #expect(HTTPStatus.uriTooLong == HTTPStatus(code: 414, reasonPhrase: "URI Too Long"))
        #expect(HTTPStatus.tooManyRequests.code == 429)
        #expect(HTTPStatus.gatewayTimeout.reasonPhrase == "Gateway Timeout")
        #expect(HTTPStatus(code: 799).reasonPhrase == "")
        #expect(HTTPVersion.http1_1.description == "HTTP/1.1")
        #expect(HTTPMethod.get.description == "GET" && HTTPMethod(rawValue: "GET") == .get)
    }

    @Test func headersCompareNamesCaseInsensitively() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add("x-a", "2")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.values("X-a") == ["1", "2"])
        #expect(headers.contains("x-A") && !headers.contains("X-B"))
        #expect(headers.count == 3)
        headers.set("X-A", "3")
        #expect(headers.values("x-a") == ["3"] && headers.count == 2)
        #expect(Array(headers).map(\.name) == ["Content-Type", "X-A"])
        headers.remove("content-type")
        #expect(headers == ["x-a": "3"])
        #expect(headers != ["x-a": "4"])
        headers.set("New", "v")
        #expect(Array(headers).map(\.name) == ["X-A", "New"])
    }

    @Test func headerTokensCombineEveryField() {
        var headers = HTTPHeaders()
        headers.add("Connection", " Keep-Alive ,, Upgrade\t")
        headers.add("connection", "TE")
        #expect(headers.tokens("CONNECTION") == ["keep-alive", "upgrade", "te"])
        #expect(headers.tokens("Missing").isEmpty)
    }

    @Test func encodesChunks() {
        var output: [UInt8] = []
        ChunkedEncoding.appendChunk(Array("Wikipedia in chunks".utf8), to: &output)
        ChunkedEncoding.appendChunk([UInt8](), to: &output)
        ChunkedEncoding.appendChunk("abc".utf8, to: &output)
        output += ChunkedEncoding.lastChunk
        #expect(String(decoding: output, as: UTF8.self) == "13\r\nWikipedia in chunks\r\n3\r\nabc\r\n0\r\n\r\n")
    }

    @Test func encodedChunksDecodeBack() throws {
        var body: [UInt8] = []
        let data = (0..<1000).map { UInt8($0 % 251) }
        ChunkedEncoding.appendChunk(data[..<300], to: &body)
        ChunkedEncoding.appendChunk(data[300...], to: &body)
        body += ChunkedEncoding.lastChunk
        var parser = HTTPResponseParser(maxBodyBytes: 1000)
        var buffer = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + body
        guard case .response(_, let decoded) = try parser.parse(&buffer, method: .get) else {
            Issue.record("expected a response")
            return
        }
        #expect(decoded == data)
    }
}
