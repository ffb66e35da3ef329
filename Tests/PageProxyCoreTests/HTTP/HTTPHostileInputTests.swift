import Foundation
import Testing

@testable import PageProxyCore

/// Inputs found by attacking earlier versions of the parsers: each once crashed or was accepted wrongly.
@Suite struct HTTPHostileInputTests {
    @Test func hugeChunkSizeIsRefusedNotOverflowed() {
        var parser = HTTPRequestParser()
        var buffer = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n".utf8)
        #expect(throws: HTTPParseError.self) { _ = try parser.parse(&buffer) }
    }

    @Test func hugeChunkSizeInAResponseIsRefused() {
        var parser = HTTPResponseParser(maxBodyBytes: 1 << 20)
        var buffer = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n".utf8)
        #expect(throws: HTTPResponseParseError.self) { _ = try parser.parse(&buffer, method: .get) }
    }

    @Test(arguments: [
        "Sun, 06 Nov 99999999999 08:49:37 GMT", "Sun, 06 Nov +1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:xx:37 GMT",
        "Sun, 30 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 +8:49:37 GMT",
    ])
    func invalidDatesAreRejected(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("leading empty lines do not grow the buffer, and a run of them is refused")
    func leadingEmptyLinesDoNotGrowTheBuffer() {
        var parser = HTTPRequestParser()
        var buffer: [UInt8] = []
        var largest = 0
        var refused: HTTPParseError?
        for _ in 0..<100_000 {
            buffer.append(contentsOf: [13, 10])
            do {
                _ = try parser.parse(&buffer)
            } catch {
                refused = error
                break
            }
            largest = max(largest, buffer.count)
        }
        #expect(largest < 64 * 1024)
        #expect(refused == .tooManyEmptyLines)
    }
}
