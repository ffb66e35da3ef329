import PageProxyCore
import Testing

@Suite struct HTTPRequestParserTests {
    @Test func parsesSimpleGet() throws {
        let outcome = ParserHarness.requests("GET /repos/a/b/issues HTTP/1.1\r\nHost: api.example.com\r\nAccept: */*\r\n\r\n")
        let head = try #require(outcome.heads.first)
        #expect(outcome.heads.count == 1 && outcome.error == nil && outcome.leftover.isEmpty)
        #expect(head.method == .get)
        #expect(head.target == "/repos/a/b/issues")
        #expect(head.path == "/repos/a/b/issues")
        #expect(head.query == nil)
        #expect(head.version == .http1_1)
        #expect(head.headers["host"] == "api.example.com")
        #expect(head.headers["Accept"] == "*/*")
        #expect(head.headers.count == 2)
        #expect(head.isKeepAlive)
        #expect(!outcome.hasPartialRequest)
    }

    @Test func ignoresEmptyLinesBeforeRequestLine() {
        let outcome = ParserHarness.requests("\r\n\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.summaries == ["GET / HTTP/1.1 [\"Host=a\"]"])
        #expect(!outcome.hasPartialRequest)
    }

    @Test("at most 16 empty lines before a request line are ignored; more are a 400, however they arrive")
    func refusesAnEndlessRunOfEmptyLines() {
        let allowed = String(repeating: "\r\n", count: HTTPRequestParser.maxEmptyLinesBeforeRequest)
        let outcome = ParserHarness.requests(allowed + "GET / HTTP/1.1\r\nHost: a\r\n\r\n" + allowed + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.summaries.count == 2 && outcome.error == nil)
        ParserHarness.expectRejection(allowed + "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", .tooManyEmptyLines)
        // Two lines at a time, as a flood arrives in reads: counted across calls.
        var parser = HTTPRequestParser()
        var refused: HTTPParseError?
        for _ in 0..<HTTPRequestParser.maxEmptyLinesBeforeRequest {
            var buffer = Array("\r\n\r\n".utf8)
            do { _ = try parser.parse(&buffer) } catch { refused = error; break }
        }
        #expect(refused == .tooManyEmptyLines)
        #expect(HTTPParseError.tooManyEmptyLines.status == .badRequest)
    }

    @Test func acceptsBareLFLineEndings() {
        let outcome = ParserHarness.requests("GET /x HTTP/1.1\nHost: a\nX-A: 1\r\n\n")
        #expect(outcome.summaries == ["GET /x HTTP/1.1 [\"Host=a\", \"X-A=1\"]"])
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Keep-Alive, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive, Upgrade\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: upgrade\r\nConnection: keep-alive\r\n\r\n", true),
    ])
    func keepAliveDefaultsFollowVersionAndConnection(input: String, keepAlive: Bool) throws {
        let head = try #require(ParserHarness.requests(input).heads.first)
        #expect(head.isKeepAlive == keepAlive)
    }

    @Test func connectionTokensAreTrimmedAndLowercased() throws {
        let head = try #require(ParserHarness.requests("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Upgrade\r\n\r\n").heads.first)
        #expect(head.headers.tokens("connection") == ["keep-alive", "upgrade"])
        #expect(head.isKeepAlive)
    }

    @Test func parsesThreePipelinedRequestsInOrder() {
        let outcome = ParserHarness.requests(
            "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3?x=1 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.heads.map(\.target) == ["/1", "/2", "/3?x=1"])
        #expect(outcome.heads.map(\.method) == [.get, .head, .get])
        #expect(outcome.leftover.isEmpty && outcome.error == nil && !outcome.hasPartialRequest)
    }

    @Test func leavesFollowingPipelinedBytesInBuffer() throws {
        var parser = HTTPRequestParser()
        var buffer = Array("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HT".utf8)
        guard case .request(let head) = try parser.parse(&buffer) else {
            Issue.record("expected a request")
            return
        }
        #expect(head.target == "/1")
        #expect(buffer == Array("GET /2 HT".utf8))
        guard case .needMoreData = try parser.parse(&buffer) else {
            Issue.record("expected needMoreData")
            return
        }
        #expect(parser.hasPartialRequest)
    }

    @Test func discardsContentLengthBodyBeforeNextRequest() {
        // The body looks like a request; it must be skipped, never parsed.
        let body = "GET /smuggled HTTP/1.1\r\nHost: evil\r\n\r\n"
        let outcome = ParserHarness.requests(
            "GET /first HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)GET /second HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.heads.map(\.target) == ["/first", "/second"])
        #expect(outcome.leftover.isEmpty && outcome.error == nil)
    }

    @Test func discardsChunkedBodyAndTrailers() {
        let outcome = ParserHarness.requests(
            "POST /a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
                + "5;ext=\"x;y\"\r\nGET /\r\n1a\r\nGET /smuggled HTTP/1.1\r\n\r\n\r\n0\r\nX-Trailer: t\r\n\r\n"
                + "GET /b HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.heads.map(\.target) == ["/a", "/b"])
        #expect(outcome.leftover.isEmpty && outcome.error == nil)
    }

    @Test func completesRequestOnlyAfterItsBodyArrives() throws {
        var parser = HTTPRequestParser()
        var buffer = Array("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nab".utf8)
        guard case .needMoreData = try parser.parse(&buffer) else {
            Issue.record("the request must wait for its body")
            return
        }
        #expect(parser.hasPartialRequest)
        buffer += Array("cdGET".utf8)
        guard case .request = try parser.parse(&buffer) else {
            Issue.record("expected a request")
            return
        }
        #expect(buffer == Array("GET".utf8))
    }

    @Test(arguments: [
        ("http://api.example.com/repos/x?page=2", "/repos/x", "page=2"),
        ("HTTPS://api.example.com:8443/a/b", "/a/b", nil),
        ("http://api.example.com", "/", nil),
        ("http://api.example.com?q", "/", "q"),
    ] as [(String, String, String?)])
    func parsesAbsoluteFormTarget(target: String, path: String, query: String?) throws {
        let head = try #require(ParserHarness.requests("GET \(target) HTTP/1.1\r\nHost: api.example.com\r\n\r\n").heads.first)
        #expect(head.target == target)
        #expect(head.path == path)
        #expect(head.query == query)
    }

    @Test(arguments: [
        ("/search?q=a%20b&page=2", "/search", "q=a%20b&page=2"),
        ("/search?", "/search", ""),
        ("/a?b?c", "/a", "b?c"),
        ("/p%2Fq", "/p%2Fq", nil),
    ] as [(String, String, String?)])
    func splitsQueryFromPath(target: String, path: String, query: String?) throws {
        let head = try #require(ParserHarness.requests("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n").heads.first)
        #expect(head.path == path)
        #expect(head.query == query)
    }

    @Test func acceptsAsteriskFormForOptions() throws {
        let head = try #require(ParserHarness.requests("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").heads.first)
        #expect(head.method == .options && head.target == "*")
    }

    @Test func acceptsHTTP10WithoutHost() throws {
        let head = try #require(ParserHarness.requests("GET / HTTP/1.0\r\n\r\n").heads.first)
        #expect(head.version == .http1_0)
    }

    @Test func trimsHeaderValueWhitespace() throws {
        let head = try #require(ParserHarness.requests("GET / HTTP/1.1\r\nHost:a\r\nX-A: \t v a l \t\r\nX-Empty:\r\n\r\n").heads.first)
        #expect(head.headers["host"] == "a")
        #expect(head.headers["x-a"] == "v a l")
        #expect(head.headers["x-empty"] == "")
    }

    @Test func reportsPartialRequest() throws {
        var parser = HTTPRequestParser()
        var buffer: [UInt8] = Array("\r\n".utf8)
        _ = try parser.parse(&buffer)
        #expect(!parser.hasPartialRequest && buffer.isEmpty)
        buffer = Array("G".utf8)
        _ = try parser.parse(&buffer)
        #expect(parser.hasPartialRequest)
        buffer += Array("ET / HTTP/1.1\r\nHost: a\r\n".utf8)
        _ = try parser.parse(&buffer)
        #expect(parser.hasPartialRequest)
        buffer += [0x0D, 0x0A]
        guard case .request = try parser.parse(&buffer) else {
            Issue.record("expected a request")
            return
        }
        #expect(!parser.hasPartialRequest)
    }

    @Test func parserIsUnusableAfterError() {
        var parser = HTTPRequestParser()
        var buffer = Array("GET / HTTP/1.1\r\nHost : a\r\n\r\n".utf8)
        #expect(throws: HTTPParseError.whitespaceBeforeColon) { try parser.parse(&buffer) }
        var fresh = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        #expect(throws: HTTPParseError.whitespaceBeforeColon) { try parser.parse(&fresh) }
    }

    @Test func byteByByteScanningIsLinear() throws {
        // 30 000 bytes of headers fed one byte at a time: each call only looks at the new byte.
        var input = Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)
        for index in 0..<300 { input += Array("X-\(index): \(String(repeating: "v", count: 90))\r\n".utf8) }
        input += [0x0D, 0x0A]
        var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderBytes: 1 << 20, maxHeaderCount: 1000))
        var buffer: [UInt8] = []
        var requests = 0
        var largestBuffer = 0
        for byte in input {
            buffer.append(byte)
            if case .request = try parser.parse(&buffer) { requests += 1 }
            largestBuffer = max(largestBuffer, buffer.count)
        }
        #expect(requests == 1)
        // Parsed lines are consumed and only the pending line stays buffered, so each call's work is bounded and the
        // whole parse is linear in the input (a property, where a time limit would only be a guess).
        #expect(largestBuffer <= 100)
    }
}
