import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The upstream-status policy (issue 12, README "Upstream statuses"): a 4xx on the first page keeps its status and
/// the upstream's words; 5xx and later pages are a 502; credentials are never echoed.
@Suite struct UpstreamStatusPolicyTests {
    private static let token = "bad-token-3f9a7c"

    private static func githubRoute(headers: [(name: String, value: String)] = [], retries: Int = 3) -> TestStack.Route {
        var route = SchemeRoutes.all[2]
        route.configure = { config in
            config.headers = headers
            config.retries = retries
        }
        return route
    }

    private static func json(_ body: [UInt8]) -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return object?["error"] as? [String: Any] ?? [:]
    }

    @Test("a bad token is the upstream's 401 with its own message, in both outputs, and the token is not echoed")
    func badTokenIs401WithTheUpstreamsBody() async throws {
        let route = Self.githubRoute(headers: [(name: "Authorization", value: "Bearer \(Self.token)")])
        try await TestStack.run(routes: [route]) { stack in
            for target in ["/github", "/github?_format=ndjson"] {
                let response = try await stack.get(target)
                #expect(response.status == 401, "\(target)")
                let error = Self.json(response.body)
                #expect(error["code"] as? String == "upstream_client_error")
                #expect(error["upstream_status"] as? Int == 401)
                #expect((error["message"] as? String)?.hasSuffix("status 401: Bad credentials") == true)
                let upstream = error["upstream_body"] as? [String: Any]
                #expect(upstream?["message"] as? String == "Bad credentials")
                #expect(upstream?["documentation_url"] as? String == "https://docs.github.com/rest")
                #expect(!response.text.contains(Self.token))
                // RFC 9110 §11.6.1: a 401 carries the challenge, here the upstream's.
                #expect(response.header("WWW-Authenticate") == #"Bearer realm="mock""#)
            }
        }
    }

    @Test("a challenge that quotes the token sent back is relayed without it, its scheme and realm kept (attack11 M1)")
    func anEchoedTokenIsRedactedInTheChallenge() async throws {
        let token = "bad-echo-71c2e9"
        let route = Self.githubRoute(headers: [(name: "Authorization", value: "Bearer \(token)")])
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/github")
            #expect(response.status == 401)
            let challenge = try #require(response.header("WWW-Authenticate"))
            #expect(!challenge.contains(token) && !response.text.contains(token))
            #expect(challenge == #"Bearer realm="mock", error="invalid_token", error_description="token REDACTED rejected""#)
        }
    }

    @Test("a wrong path is the upstream's 404")
    func wrongPathIs404() async throws {
        try await TestStack.run(routes: [Self.githubRoute()]) { stack in
            let response = try await stack.get("/github/nope")
            #expect(response.status == 404)
            let error = Self.json(response.body)
            #expect(error["code"] as? String == "upstream_client_error")
            #expect((error["upstream_body"] as? [String: Any])?["message"] as? String == "Not Found")
            #expect(error["upstream_url"] as? String == "http://127.0.0.1:\(stack.mockPort)/github/items/nope?per_page=10")
        }
    }

    @Test("a 429 that outlasts the retries is answered 429")
    func rateLimitAfterRetriesIs429() async throws {
        try await TestStack.run(routes: [Self.githubRoute(retries: 0)]) { stack in
            let response = try await stack.get("/github?mock_fault=status429@1")
            #expect(response.status == 429)
            #expect(response.header("Retry-After") == "1")
            #expect(Self.json(response.body)["code"] as? String == "upstream_client_error")
        }
    }

    @Test("a 5xx on the first page stays a 502, with the upstream's body")
    func serverErrorOnTheFirstPageIs502() async throws {
        try await TestStack.run(routes: [Self.githubRoute(retries: 0)]) { stack in
            let response = try await stack.get("/github?mock_fault=status500@1")
            #expect(response.status == 502)
            let error = Self.json(response.body)
            #expect(error["code"] as? String == "upstream_status")
            #expect((error["upstream_body"] as? [String: Any])?["error"] as? String == "internal server error")
        }
    }

    @Test("a 4xx after the first page is a 502 (merged) or a broken stream (NDJSON), with the upstream's body")
    func clientErrorOnALaterPageIsAGatewayFailure() async throws {
        try await TestStack.run(routes: [Self.githubRoute()]) { stack in
            let merged = try await stack.get("/github?mock_total=100&mock_fault=status403@3")
            #expect(merged.status == 502)
            let error = Self.json(merged.body)
            #expect(error["code"] as? String == "upstream_status")
            #expect(error["page"] as? Int == 3)
            #expect(((error["upstream_body"] as? [String: Any])?["message"] as? String)?.contains("secondary rate limit") == true)

            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/github?mock_total=100&_format=ndjson&mock_fault=status403@3"))
            let raw = try await client.readUntilClose()
            let body = try ChunkedBody.decode(raw.bodyAfterHead)
            #expect(!body.isComplete)
            let last = String(decoding: body.data.split(separator: UInt8(ascii: "\n")).last ?? [], as: UTF8.self)
            #expect(last.hasPrefix(StreamFailureLine.marker + "{\"error\":{\"code\":\"upstream_status\""))
            #expect(last.contains("secondary rate limit"))
        }
    }

    @Test("a refused redirect is a 502 that names where it pointed, without credentials")
    func foreignRedirectIsRendered() {
        let url = PageURL(string: "http://api.test/items")!
        let error = PaginationError.upstreamFailed(
            page: 1, url: url, error: .foreignRedirect(origin: "http://api.test", location: "https://evil.test/x?token=REDACTED"))
        let response = PaginationErrorResponse(error, route: "r")
        #expect(response.status.code == 502)
        #expect(response.code == "foreign_redirect")
        let body = Self.json(ErrorResponse.body(for: response))
        #expect(body["location"] as? String == "https://evil.test/x?token=REDACTED")
        #expect((body["message"] as? String)?.contains("redirected to https://evil.test/x") == true)
    }

    @Test("the default Accept admits JSON:API's media type; a route's own Accept replaces it")
    func defaultAcceptSatisfiesJSONAPI() async throws {
        var strict = SchemeRoutes.all[7]
        strict.name = "strict"
        strict.configure = { $0.headers = [(name: "Accept", value: "application/json")] }
        try await TestStack.run(routes: [SchemeRoutes.all[7], strict]) { stack in
            let response = try await stack.get("/jsonapi?mock_total=25")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 25))
            #expect(stack.mock.log.requests.first?.header("Accept") == HTTP1Transport.defaultAccept)
            let refused = try await stack.get("/strict?mock_total=25")
            #expect(refused.status == 406)
            #expect(Self.json(refused.body)["code"] as? String == "upstream_client_error")
        }
    }
}
