import Testing

@testable import PageProxyCore

/// One list of credential-like query names, matched case-insensitively, hides their values from logs and errors.
@Suite struct CredentialRedactionTests {
    @Test("every credential-like name has its value replaced", arguments: [
        "token", "access_token", "id_token", "refresh_token", "api_key", "apikey", "key", "secret", "client_secret",
        "password", "passwd", "pwd", "signature", "sig", "X-Amz-Signature", "X-Amz-Credential", "jwt", "auth", "code",
        "session", "sessionid", "JWT", "Access_Token", "API_KEY", "j%77t", "%4Awt", "bearer", "assertion", "otp",
    ])
    func credentialNamesAreRedacted(name: String) {
        #expect(CredentialRedaction.redactQuery("page=2&\(name)=hunter2&per_page=10") == "page=2&\(name)=REDACTED&per_page=10")
    }

    @Test("ordinary names, pairs without a value and the order of the query are kept")
    func ordinaryQueryIsKept() {
        let query = "page=2&per_page=10&q=swift&mock_total=7&flag&&state=open"
        #expect(CredentialRedaction.redactQuery(query) == query)
    }

    @Test("the error body's upstream URL is redacted with the same list")
    func pageURLDescriptionIsRedacted() throws {
        let url = try #require(PageURL(string: "https://api.example.com/items?jwt=eyJ.x.y&page=3"))
        #expect(url.redactedDescription == "https://api.example.com/items?jwt=REDACTED&page=3")
    }
}
