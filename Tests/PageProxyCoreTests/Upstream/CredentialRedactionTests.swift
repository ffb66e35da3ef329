import PageProxyCore
import Testing

/// One list of credential-like query names serves the log and error bodies (issue 14).
@Suite struct CredentialRedactionTests {
    @Test("every credential-like name is redacted, whatever its case or percent-encoding", arguments: [
        "token", "access_token", "id_token", "refreshToken", "api_key", "apikey", "key", "secret", "client_secret",
        "clientSecret", "password", "passwd", "pwd", "signature", "X-Amz-Signature", "sig", "jwt", "JWT", "auth",
        "oauth_token", "authorization", "bearer", "X-Amz-Credential", "session", "sessionId", "PHPSESSID", "cookie",
        "code", "otp", "ticket", "SAMLResponse", "assertion", "hmac", "%6Awt", "%4A%57%54",
    ])
    func secretNamesAreRedacted(name: String) {
        #expect(CredentialRedaction.isSecretName(name))
        #expect(CredentialRedaction.redactQuery("a=1&\(name)=hunter2&b=2") == "a=1&\(name)=REDACTED&b=2")
    }

    @Test("ordinary names keep their values", arguments: ["page", "per_page", "q", "sort", "cursor", "limit", "mock_total", "id"])
    func ordinaryNamesAreKept(name: String) {
        #expect(!CredentialRedaction.isSecretName(name))
        #expect(CredentialRedaction.redactQuery("\(name)=7") == "\(name)=7")
    }

    @Test("a relayed challenge keeps its scheme and realm; the secrets sent and scheme words inside quotes go")
    func challengesAreRedactedInsideTheirQuotes() {
        #expect(CredentialRedaction.redactChallenge(#"Bearer realm="api""#, secrets: ["s3cret-key"]) == #"Bearer realm="api""#)
        #expect(
            CredentialRedaction.redactChallenge(
                #"Bearer realm="api", error_description="key s3cret-key rejected for Bearer xyz123""#, secrets: ["s3cret-key"])
                == #"Bearer realm="api", error_description="key REDACTED rejected for Bearer REDACTED""#)
    }

    @Test("an escaped quote inside a quoted parameter does not end it: the scheme word after it is still redacted (review13 N3)")
    func escapedQuotesStayInsideTheirString() {
        #expect(
            CredentialRedaction.redactChallenge(
                #"Bearer realm="api", error_description="the header \"Bearer abc123\" is bad""#, secrets: [])
                == #"Bearer realm="api", error_description="the header \"Bearer REDACTED\" is bad""#)
        #expect(CredentialRedaction.redactChallenge(#"Bearer error="x", detail="Basic dXNlcjpw"#, secrets: [])
            == #"Bearer error="x", detail="Basic REDACTED"#)
    }

    @Test("an Authorization value whose percent-encoding is broken elsewhere is still redacted (review11)")
    func brokenPercentEncodingIsRedacted() {
        #expect(CredentialRedaction.redactQuery("q=Bearer%20secret%") == "q=REDACTED")
        #expect(CredentialRedaction.redactQuery("q=bearer+secret%zz&page=2") == "q=REDACTED&page=2")
        #expect(CredentialRedaction.redactQuery("q=plain%") == "q=plain%")
    }

    @Test("pairs split by ; as by &, and a value that is an Authorization value, are redacted (attack7 F6)")
    func semicolonPairsAndAuthorizationValuesAreRedacted() {
        #expect(CredentialRedaction.redactQuery("x=1;access_token=S3&page=2") == "x=1;access_token=REDACTED&page=2")
        #expect(CredentialRedaction.redactQuery("q=Bearer%20S13&page=2") == "q=REDACTED&page=2")
        #expect(CredentialRedaction.redactQuery("q=basic+dXNlcjpw") == "q=REDACTED")
        #expect(CredentialRedaction.redactQuery("q=bearers&sort=name%20asc") == "q=bearers&sort=name%20asc")
        #expect(CredentialRedaction.redactQuery("a;b&c=") == "a;b&c=")
    }

    @Test func aLinkKeepsItsPathAndLosesItsSecrets() {
        #expect(CredentialRedaction.redactURL("ftp://u:p@h/p?page=2&jwt=abc") == "ftp://h/p?page=2&jwt=REDACTED")
        #expect(CredentialRedaction.redactURL("/items?Token=x") == "/items?Token=REDACTED")
        #expect(CredentialRedaction.redactURL("no-query") == "no-query")
    }

    @Test func anUpstreamURLInAnErrorBodyLosesItsSecrets() {
        let url = PageURL(scheme: "https", host: "api.example.com", port: 443, path: "/v1/items", query: "page=2&jwt=eyJ.secret&sig=zz")
        #expect(url.redactedDescription == "https://api.example.com/v1/items?page=2&jwt=REDACTED&sig=REDACTED")
    }
}
