import Foundation
import PageProxyCore
import Testing

/// Credentials found by their shape, whatever their name, in the one place redaction happens (`CredentialRedaction`:
/// the log's `path`, error bodies, messages; retest16 U1).
@Suite struct SecretValueShapeTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.dGhpcy1pcy1hLXNpZ25hdHVyZQ"

    @Test("every credential shape is redacted under a harmless name, in a query and in a text", arguments: [
        jwt,
        "eyJhbGciOiJub25lIn0.e30.",  // an unsigned JWT: an empty signature
        "ghp_" + String(repeating: "a1B2", count: 9),
        "gho_" + String(repeating: "Z9y8", count: 9),
        "github_pat_11ABCDEFG0" + String(repeating: "x_Y7", count: 15),
        "sk_live_" + String(repeating: "4eC3", count: 6),
        "sk_test_" + String(repeating: "BQok", count: 6),
        "xoxb-1234567890-abcdefghij",
        "xoxp-12345-67890-abcdef",
        "AKIAIOSFODNN7EXAMPLE",
    ])
    func credentialShapesAreRedacted(secret: String) {
        #expect(SecretValueShape.isFound(in: secret))
        #expect(CredentialRedaction.redactQuery("page=2&x=\(secret)&sort=id") == "page=2&x=REDACTED&sort=id")
        #expect(
            CredentialRedaction.redactText("bad value \(secret), try again", secrets: []) == "bad value REDACTED, try again")
        #expect(CredentialRedaction.redactText(#"{"id":"\#(secret)"}"#, secrets: []) == #"{"id":"REDACTED"}"#)
    }

    @Test("look-alikes stay: a prefix alone, a body too short, a prefix inside a word, an eyJ id without two dots", arguments: [
        "eyJ", "eyJhbGciOiJIUzI1NiJ9", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ", "eyJ.e30.x", "keyJhbGciOiJIUzI1NiJ9.e30.x",
        "ghp_test", "ghp_" + String(repeating: "a", count: 29), "my-ghp_" + String(repeating: "a", count: 36),
        "github_pat_short", "sk_test_mode", "sk_live_", "task_live_" + String(repeating: "a", count: 20), "xoxb-1",
        "xoxo-1234567890", "AKIAFOO", "AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPLE1", "AKIAIOSFODNN7EXAMPLEx",
        "BAKIAIOSFODNN7EXAMPLE", "page-2", "2024-01-01T00:00:00Z",
    ])
    func lookAlikesStay(value: String) {
        #expect(!SecretValueShape.isFound(in: value))
        #expect(CredentialRedaction.redactQuery("id=\(value)") == "id=\(value)")
        #expect(CredentialRedaction.redactText("id \(value) here", secrets: []) == "id \(value) here")
    }

    @Test("every token in a text goes, and the words between stay")
    func everyTokenInATextGoes() {
        let text = "tokens \(Self.jwt) and AKIAIOSFODNN7EXAMPLE; eyJ stays"
        #expect(SecretValueShape.redact(text) == "tokens REDACTED and REDACTED; eyJ stays")
    }

    @Test("a percent-encoded JWT in a query is seen decoded")
    func encodedShapesAreSeen() {
        let encoded = Self.jwt.replacingOccurrences(of: ".", with: "%2E")
        #expect(CredentialRedaction.redactQuery("cursor=\(encoded)") == "cursor=REDACTED")
    }

    @Test("a token right after a percent escape of a non-word byte is a word's start (an upstream's echo of the raw query, retest18 U1)")
    func tokensAfterPercentEscapesAreRedacted() {
        let ghp = "ghp_" + String(repeating: "a1B2", count: 9)
        let stripe = "sk_live_" + String(repeating: "4eC3", count: 6)
        let echo = "query=enc=foo%2C\(ghp)&b=Bearer%20\(Self.jwt)&quoted=%22\(stripe)%22&low=x%2cAKIAIOSFODNN7EXAMPLE&page=2"
        #expect(
            CredentialRedaction.redactText(echo, secrets: [])
                == "query=enc=foo%2CREDACTED&b=Bearer%20REDACTED&quoted=%22REDACTED%22&low=x%2cREDACTED&page=2")
        for escaped in ["%2C\(ghp)", "Bearer%20\(Self.jwt)", "%22\(stripe)%22"] {
            #expect(SecretValueShape.isFound(in: escaped), "\(escaped)")
        }
    }

    @Test("an escaped word byte before a prefix still joins the word, as decoded; a bare or broken % is no escape", arguments: [
        "abc%41ghp_" + String(repeating: "a1B2", count: 9),  // %41 is "A": "abcAghp_…"
        "x%5Fsk_live_" + String(repeating: "4eC3", count: 6),  // %5F is "_": "x_sk_live_…"
        "n%30AKIAIOSFODNN7EXAMPLE",  // %30 is "0"
        "a%2Dxoxb-1234567890-abcdefghij",  // %2D is "-"
        "a%ZCghp_" + String(repeating: "a1B2", count: 9),  // no escape: "C" before the prefix
        "%Cghp_" + String(repeating: "a1B2", count: 9),
    ])
    func escapedWordBytesStayInTheWord(value: String) {
        #expect(!SecretValueShape.isFound(in: value))
        #expect(CredentialRedaction.redactText("id \(value) here", secrets: []) == "id \(value) here")
    }

    @Test("a client's secret-named value too short to hide everywhere is hidden as the pair an upstream quotes (retest16 L1)")
    func shortQuerySecretsAreHiddenAsPairs() {
        let secrets = CredentialRedaction.secrets(in: HTTPHeaders(), query: "st=500&password=PW&x_api_key=QX1&page=1&code=")
        #expect(secrets.contains("password=PW") && secrets.contains("x_api_key=QX1"))
        #expect(!secrets.contains { $0.hasPrefix("code=") || $0 == "PW" })
        let message = "bad creds: query=st=500&password=PW&x_api_key=QX1&page=1 (PWD policy)"
        #expect(
            CredentialRedaction.redactText(message, secrets: secrets) == "bad creds: query=st=500&REDACTED&REDACTED&page=1 (PWD policy)")
    }
}
