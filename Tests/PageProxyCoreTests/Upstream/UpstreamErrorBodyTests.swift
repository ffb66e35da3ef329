import Testing

@testable import PageProxyCore

/// What an error shows of an upstream's error body: JSON as JSON, other bodies as bounded text, never a credential.
@Suite struct UpstreamErrorBodyTests {
    private func body(_ text: String, type: String? = "application/json") -> UpstreamErrorBody {
        var headers = HTTPHeaders()
        if let type { headers.set("Content-Type", type) }
        return UpstreamErrorBody(UpstreamResponse(status: HTTPStatus(code: 401), headers: headers, body: Array(text.utf8)))
    }

    @Test func jsonIsQuotedAsJSONWithCredentialMembersRedacted() {
        let excerpt = body(#"{"message":"Bad credentials","access_token":"abc123","nested":{"Password":"x"},"code":"E1"}"#)
            .excerpt(redacting: [])
        #expect(excerpt == .json(#"{"access_token":"REDACTED","code":"E1","message":"Bad credentials","nested":{"Password":"REDACTED"}}"#))
    }

    @Test func quotedJSONKeepsSlashesAsWritten() {
        let excerpt = body(#"{"documentation_url":"https://docs.github.com/rest","message":"Bad credentials"}"#).excerpt(redacting: [])
        #expect(excerpt == .json(#"{"documentation_url":"https://docs.github.com/rest","message":"Bad credentials"}"#))
    }

    @Test("the credentials PageProxy sent are redacted wherever the upstream quotes them")
    func sentSecretsAreRedacted() {
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer s3cr3t-token")
        headers.set("Accept", "application/json")
        let secrets = CredentialRedaction.secrets(in: headers)
        let json = body(#"{"message":"token s3cr3t-token is revoked"}"#)
        #expect(json.excerpt(redacting: secrets) == .json(#"{"message":"token REDACTED is revoked"}"#))
        #expect(json.summary(redacting: secrets) == "token REDACTED is revoked")
        let text = body("denied for Bearer s3cr3t-token.", type: "text/plain").excerpt(redacting: secrets)
        #expect(text == .text("denied for REDACTED."))
        // A bearer token PageProxy did not send is still a credential.
        #expect(body("echo: Authorization: Bearer other-42", type: nil).excerpt(redacting: []) == .text("echo: Authorization: Bearer REDACTED"))
    }

    /// attack16 M2: the headers' own shorter list left `*-Password`, `*-Pwd`, `*-JWT` and `*-Credential` values quoted
    /// back to any client that made the upstream fail.
    @Test("header values named like any secret the query list names are hidden; names that say none are not")
    func everySecretHeaderNameIsHidden() {
        var headers = HTTPHeaders()
        for (name, value) in [
            ("X-Api-Password", "HDRPW1"), ("X-Jwt", "HDRJWT1"), ("X-Passwd", "HDRPW2"), ("X-Credential", "HDRCR1"), ("X-Pwd", "HDRPW3"),
            ("X-Api-Key", "HDRKEY9"), ("Accept", "application/json"), ("User-Agent", "agent-007"),
        ] {
            headers.set(name, value)
        }
        let secrets = CredentialRedaction.secrets(in: headers)
        let quoted = body(#"{"text":"got HDRPW1 HDRJWT1 HDRPW2 HDRCR1 HDRPW3 HDRKEY9 application/json agent-007"}"#)
        #expect(quoted.excerpt(redacting: secrets) == .json(#"{"text":"got REDACTED REDACTED REDACTED REDACTED REDACTED REDACTED application/json agent-007"}"#))
        // Members named so are hidden whatever their value.
        let members = body(#"{"received":{"X-Jwt":"a","X-Pwd":"b","X-Hmac":"c","X-Api-Password":"d","Accept":"e"}}"#)
        #expect(members.excerpt(redacting: []) == .json(#"{"received":{"Accept":"e","X-Api-Password":"REDACTED","X-Hmac":"REDACTED","X-Jwt":"REDACTED","X-Pwd":"REDACTED"}}"#))
    }

    @Test("a body that is not JSON is a text excerpt of at most 2 KiB, cut on a character")
    func textIsBounded() {
        let html = "<html>" + String(repeating: "é", count: 3000) + "</html>"
        guard case .text(let text) = body(html, type: "text/html").excerpt(redacting: []) else {
            Issue.record("expected text")
            return
        }
        #expect(text.hasPrefix("<html>éé"))
        #expect(text.hasSuffix("é…"))
        #expect(text.utf8.count <= 2 * 1024 + 3)
    }

    @Test func summaryReadsTheUsualPlaces() {
        #expect(body(#"{"detail":"Invalid page."}"#).summary(redacting: []) == "Invalid page.")
        #expect(body(#"{"errors":[{"title":"Not Acceptable","detail":"Could not satisfy"}]}"#).summary(redacting: []) == "Could not satisfy")
        #expect(body(#"{"error":{"type":"invalid_request_error","message":"No such customer"}}"#).summary(redacting: []) == "No such customer")
        #expect(body("[1,2]").summary(redacting: []) == nil)
        #expect(body("").excerpt(redacting: []) == UpstreamErrorBody.Excerpt.none)
    }

    @Test func locationsLoseUserInfoAndSecretQueryValues() {
        #expect(CredentialRedaction.redactURL("https://user:pw@evil.test/x?api_key=1&page=2") == "https://evil.test/x?api_key=REDACTED&page=2")
        #expect(CredentialRedaction.redactURL("/relative?token=t") == "/relative?token=REDACTED")
    }
}
