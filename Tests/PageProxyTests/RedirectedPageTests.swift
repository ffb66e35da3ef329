import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// What a page reached through a redirect tells: where its relative links point, and nothing of the credentials sent.
@Suite struct RedirectedPageTests {
    @Test("a redirect to another origin whose Location carries the route's token, percent-encoded: the 502 shows neither spelling (attack14 M5)")
    func foreignRedirectHidesTheSentToken() async throws {
        var secret = SchemeRoutes.all[8]
        secret.name = "secret"
        secret.configure = { $0.headers = [(name: "Authorization", value: "Bearer s3cr3t/V+A=LUE")] }
        try await TestStack.run(routes: [secret]) { stack in
            for explain in ["", "&_explain=1"] {
                let response = try await stack.get("/secret?mock_leak_to=127.0.0.2:9" + explain)
                #expect(response.text.contains("foreign_redirect"), "\(response.text)")
                #expect(response.text.contains("127.0.0.2:9/?x=REDACTED"), "\(response.text)")
                #expect(!response.text.contains("s3cr3t"), "\(response.text)")
            }
        }
    }
}
