import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 14: credentials the client sends reach the upstream exactly once and exactly as sent, and never the log or
/// an error body.
@Suite struct ForwardedCredentialTests {
    private static let routes = [
        TestStack.Route(name: "github", mockPath: "/github/items", scheme: .linkHeader(PaginationScheme.LinkHeader())) {
            $0.forwardHeaders = ["Authorization", "Cookie", "X-Api-Key"]
            $0.retries = 0
        }
    ]

    @Test("a jwt query value reaches neither the request log nor the error body's upstream_url")
    func jwtIsRedactedInLogAndErrorBody() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let response = try await stack.get("/github?jwt=eyJhbGciOi.secret&mock_fault=malformed@1")
            #expect(response.status == 502)
            #expect(response.text.contains("\"upstream_url\":"))
            #expect(response.text.contains("jwt=REDACTED"))
            #expect(!response.text.contains("eyJhbGciOi"))
            try await poll("the request is logged") { stack.logs.lines.contains { $0.contains("\"msg\":\"request\"") } }
            let line = stack.logs.lines.first { $0.contains("\"msg\":\"request\"") } ?? ""
            #expect(line.contains("jwt=REDACTED"))
            #expect(!line.contains("eyJhbGciOi"))
        }
    }

    @Test("a repeated forwarded credential header is a 400 and reaches no upstream", arguments: [
        "Authorization", "authorization", "Cookie", "X-Api-Key",
    ])
    func repeatedCredentialHeaderIsRefused(name: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let client = try await stack.client()
            try await client.send("GET /github HTTP/1.1\r\nHost: x\r\n\(name): Bearer one\r\n\(name.uppercased()): Bearer two\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"repeated_header\""))
            #expect(!response.text.contains("Bearer"))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a forwarded header value that is not UTF-8 is refused, never forwarded altered")
    func nonUTF8CredentialIsRefused() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let client = try await stack.client()
            try await client.send(Array("GET /github HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ".utf8) + [0xFF, 0xFE] + Array("\r\n\r\n".utf8))
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"invalid_header_value\""))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a forwarded UTF-8 value reaches the upstream byte for byte, once")
    func utf8CredentialIsForwardedExactly() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let value = "Bearer caf\u{E9}-\u{2713} \t x"
            let response = try await stack.get("/github?mock_total=3", headers: ["Authorization": value])
            #expect(response.status == 200)
            let request = try #require(stack.mock.log.requests.first)
            #expect(request.headers.filter { $0.name.lowercased() == "authorization" }.map { Array($0.value.utf8) } == [Array("Bearer caf\u{E9}-\u{2713} \t x".utf8)])
        }
    }

    @Test("a header the route sets and forwards goes upstream once: the client's when it sent one, else the route's (attack14 L4)")
    func aSetAndForwardedHeaderGoesOnce() async throws {
        var route = Self.routes[0]
        route.configure = {
            $0.headers = [(name: "Authorization", value: "Bearer route-token"), (name: "Cookie", value: "static=1")]
            $0.forwardHeaders = ["Authorization", "Cookie"]
        }
        try await TestStack.run(routes: [route]) { stack in
            let forwarded = try await stack.get("/github?mock_total=5", headers: ["Authorization": "Bearer client-token", "Cookie": "client=2"])
            #expect(forwarded.status == 200)
            let first = try #require(stack.mock.log.requests.first)
            #expect(first.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer client-token"])
            #expect(first.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value) == ["client=2"])
            stack.mock.log.reset()
            let routeOwn = try await stack.get("/github?mock_total=5&fresh=1")
            #expect(routeOwn.status == 200)
            #expect(stack.mock.log.requests.first?.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer route-token"])
        }
    }

    /// contract22 F1 (RFC 9110 §7.6.1): a field the client's `Connection` names is for its hop only, and a proxy must
    /// remove it; it was forwarded, and keyed the cache, like any other.
    @Test("a forwarded field that the client's Connection names is not sent upstream, nor makes the answer private")
    func aFieldNamedByConnectionIsNotForwarded() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let hopOnly = try await stack.get("/github?mock_total=3", headers: ["Connection": "keep-alive, X-API-KEY", "X-Api-Key": "k1"])
            #expect(hopOnly.status == 200)
            let first = try #require(stack.mock.log.requests.first)
            #expect(!first.headers.contains { $0.name.lowercased() == "x-api-key" })
            #expect(hopOnly.header("Cache-Control")?.hasPrefix("private") == false, "\(hopOnly.header("Cache-Control") ?? "-")")
            // The same target and value without `Connection` naming it: forwarded (a kept plan of the first must not
            // answer this one).
            stack.mock.log.reset()
            let forwarded = try await stack.get("/github?mock_total=3", headers: ["X-Api-Key": "k1"])
            #expect(forwarded.status == 200)
            let second = try #require(stack.mock.log.requests.first)
            #expect(second.headers.filter { $0.name.lowercased() == "x-api-key" }.map(\.value) == ["k1"])
            #expect(forwarded.header("Cache-Control")?.hasPrefix("private") == true)
        }
    }

    /// attack16 L4 (RFC 6750 §2.3): an answer to a request whose credentials went upstream in its query was public.
    @Test("an API key in the client's query makes the answer private; a secret-looking name that is none does not")
    func aQueryCredentialMakesTheAnswerPrivate() async throws {
        try await TestStack.run { stack in
            for name in ["access_token", "api_key", "API%5FKEY"] {
                let answer = try await stack.get("/plain?mock_total=5&\(name)=QAT9")
                #expect(answer.status == 200)
                #expect(answer.header("Cache-Control")?.hasPrefix("private, ") == true, "\(name): \(answer.header("Cache-Control") ?? "-")")
            }
            let sorted = try await stack.get("/plain?mock_total=5&sort_key=name")
            #expect(sorted.header("Cache-Control")?.hasPrefix("private") == false, "\(sorted.header("Cache-Control") ?? "-")")
        }
    }
}
