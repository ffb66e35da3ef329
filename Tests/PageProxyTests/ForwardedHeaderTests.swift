import PageProxyCore
import Testing

@testable import PageProxy

/// Forwarded headers (a route's `forwardHeaders`) reach the upstream exactly as the client sent them, or the
/// request is refused: never two credentials, never a value rewritten.
@Suite struct ForwardedHeaderTests {
    private static var routes: [TestStack.Route] {
        var route = SchemeRoutes.all.first { $0.name == "github" }!
        route.configure = { $0.forwardHeaders = ["Authorization", "Cookie", "X-Tenant"] }
        return [route]
    }

    /// Sends `fields` (raw header lines, repeats allowed) on a new connection and reads the answer.
    private static func get(_ stack: TestStack, _ fields: [UInt8]) async throws -> RawHTTPClient.Response {
        let client = try await stack.client()
        try await client.send(Array("GET /github?mock_total=3 HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8) + fields + Array("\r\n".utf8))
        return try await client.readResponse()
    }

    @Test("a forwarded header sent twice is a 400 repeated_forwarded_header and reaches no upstream", arguments: [
        "Authorization: Bearer a\r\nAuthorization: Bearer b\r\n", "Cookie: a=1\r\ncookie: b=2\r\n", "X-Tenant: 1\r\nX-Tenant: 2\r\n",
    ])
    func repeatedForwardedHeaderIsRefused(fields: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await Self.get(stack, Array(fields.utf8))
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"repeated_forwarded_header\""))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a forwarded header whose value is not UTF-8 is a 400 forwarded_header_not_utf8 and reaches no upstream")
    func nonUTF8ForwardedHeaderIsRefused() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await Self.get(stack, Array("Authorization: Bearer ".utf8) + [0xFF, 0x80] + Array("\r\n".utf8))
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"forwarded_header_not_utf8\""))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("UTF-8 forwarded values arrive byte for byte; a header that is not forwarded may repeat or hold any bytes")
    func forwardedValuesArriveUnchanged() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let fields = Array("Authorization: Bearer caf\u{E9}-\u{1F600}\r\nX-Other: 1\r\nX-Other: ".utf8) + [0xFF] + Array("\r\n".utf8)
            let response = try await Self.get(stack, fields)
            #expect(response.status == 200)
            let request = try #require(stack.mock.log.requests.first)
            #expect(request.headers.filter { $0.name == "Authorization" }.map(\.value) == ["Bearer caf\u{E9}-\u{1F600}"])
            #expect(request.header("X-Other") == nil)
        }
    }
}
