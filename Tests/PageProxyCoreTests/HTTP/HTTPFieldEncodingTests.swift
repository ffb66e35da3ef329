import Testing

@testable import PageProxyCore

/// A field value that is not UTF-8 is kept (RFC 9110 §5.5 allows obs-text) but named, so that it is never
/// forwarded altered.
@Suite struct HTTPFieldEncodingTests {
    private static func parse(_ bytes: [UInt8]) throws -> HTTPRequestHead? {
        var parser = HTTPRequestParser()
        var buffer = bytes
        guard case .request(let head) = try parser.parse(&buffer) else { return nil }
        return head
    }

    @Test("a value with bytes that are not UTF-8 is named in fieldsNotUTF8; UTF-8 and ASCII values are not")
    func nonUTF8ValuesAreNamed() throws {
        let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ".utf8) + [0xFF, 0xFE]
            + Array("\r\nX-Name: caf\u{E9}\r\nX-Latin: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8)
        let head = try #require(try Self.parse(bytes))
        #expect(head.fieldsNotUTF8 == ["Authorization", "X-Latin"])
        #expect(head.headers["X-Name"] == "caf\u{E9}")
    }

    @Test("each request of a connection starts with no names")
    func namesDoNotCarryOver() throws {
        var parser = HTTPRequestParser()
        var buffer = Array("GET / HTTP/1.1\r\nHost: a\r\nX: ".utf8) + [0xFF] + Array("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        guard case .request(let first) = try parser.parse(&buffer), case .request(let second) = try parser.parse(&buffer) else {
            Issue.record("two requests expected")
            return
        }
        #expect(first.fieldsNotUTF8 == ["X"])
        #expect(second.fieldsNotUTF8.isEmpty)
    }
}
