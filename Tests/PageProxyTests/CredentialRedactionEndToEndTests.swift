import PageProxyCore
import Testing

@testable import PageProxy

/// DESIGN.md "Upstream behaviour": credentials never appear in logs or error bodies, whatever their query name.
@Suite struct CredentialRedactionEndToEndTests {
    @Test("a jwt query value reaches neither the request log nor the error body's upstream_url")
    func jwtIsRedactedEverywhere() async throws {
        var route = try #require(SchemeRoutes.all.first { $0.name == "github" })
        route.configure = { $0.retries = 0 }
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/github?jwt=eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig&mock_fault=status500@1")
            #expect(response.status == 502)
            #expect(response.text.contains("\"upstream_url\":\"http://127.0.0.1:\(stack.mockPort)/github/items?jwt=REDACTED&"))
            #expect(!response.text.contains("c2VjcmV0"))
            try await poll("the request is logged") { stack.logs.lines.contains { $0.contains("\"msg\":\"request\"") } }
            let line = try #require(stack.logs.lines.first { $0.contains("\"msg\":\"request\"") })
            #expect(line.contains("\"path\":\"/github?jwt=REDACTED&mock_fault=status500@1\""))
            #expect(!stack.logs.lines.contains { $0.contains("c2VjcmV0") })
        }
    }
}
