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
        // `+` is a space wherever it stands, beside text that is not ASCII too; the query comes back as it was unless redacted.
        #expect(CredentialRedaction.redactQuery("q=Bearer+caf\u{E9}&page=2") == "q=REDACTED&page=2")
        #expect(CredentialRedaction.redactQuery("q=caf\u{E9}+bearer+x&page=2") == "q=caf\u{E9}+bearer+x&page=2")
        #expect(CredentialRedaction.redactQuery("q=\u{E9}+&r=+") == "q=\u{E9}+&r=+")
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

    /// review23 F7: a header's value is replaced wherever an error body quotes it, so a header is a secret's by the words
    /// of its name, not by parts of them: `X-Country-Code` and `X-Passenger-Count` are no credentials.
    @Test("header names are secret by their words: X-Api-Password, X-Jwt, access_token, X-Amz-Signature, code are; X-Country-Code is not",
        arguments: [
            ("Authorization", true), ("Proxy-Authorization", true), ("Cookie", true), ("X-Api-Key", true), ("Private-Token", true),
            ("X-Api-Password", true), ("X-Jwt", true), ("X-JWT", true), ("access_token", true), ("X-Amz-Signature", true),
            ("X-Amz-Security-Token", true), ("code", true), ("X-Code", true), ("clientSecret", true), ("X-APIKEY", true), ("apikey", true),
            ("X-Credentials", true), ("X-Session-Id", true), ("X-Otp", true), ("X-Sig", true), ("X-Accesstoken", true), ("X-Pwd", true),
            ("X-Country-Code", false), ("X-Passenger-Count", false), ("X-Design-Id", false), ("X-Error-Code", false), ("X-Zipcode", false),
            ("Accept", false), ("User-Agent", false), ("X-Request-Id", false), ("X-Signal", false), ("X-Topic", false),
            // review25 M4: one-word `*key` names and whole words that a240fba's substring rule redacted.
            ("appkey", true), ("X-Appkey", true), ("authkey", true), ("secretkey", true), ("privatekey", true), ("userkey", true),
            ("clientkey", true), ("licensekey", true), ("X-Authentication", true), ("Authentication", true), ("X-Passcode", true),
            ("X-Access-Code", true), ("X-Auth-Code", true), ("X-Accesscode", true), ("X-Xauth", true),
            ("X-Author", false), ("X-Keyword", false), ("X-Passenger", false), ("X-Code-Version", false), ("X-Authority-Region", false),
        ])
    func headerNamesAreSecretByTheirWords(_ name: String, _ secret: Bool) {
        #expect(CredentialRedaction.isSecretHeader(name) == secret)
    }

    @Test("a route's query secrets are found in pairs split by ; as by & (review23 F7: a redirect quoting them)")
    func querySecretsAreFoundAcrossSemicolons() {
        for query in ["a=1;api_key=k3y9Z", "a=1&api_key=k3y9Z", "api_key=k3y9Z;b=2"] {
            #expect(CredentialRedaction.secrets(in: HTTPHeaders(), query: query).contains("k3y9Z"), "\(query)")
        }
        #expect(!CredentialRedaction.secrets(in: HTTPHeaders(), query: "a=1;page=2345").contains("2345"))
    }
}
