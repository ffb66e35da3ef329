import Testing

@testable import PageProxyCore

/// The URL that answered a redirected page is stored with its credential query values redacted; `Page.answeredURL`
/// takes them back from the URL asked for. A value redacted by its shape (a JWT-shaped cursor under a plain name,
/// loose18) is taken back too: the page's links are numbered and resolved against it.
@Suite struct AnsweredURLTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"

    static func page(asked: String, answered: PageURL) throws -> Page {
        var headers = HTTPHeaders()
        headers.set(RedirectingTransport.answeredURLField, answered.redactedDescription)
        return Page(number: 2, url: try #require(PageURL(string: asked)), status: .ok, headers: headers, body: [], items: [], values: [:])
    }

    @Test("a shaped cursor and a secret-named key, redacted in the stored field, come back from the URL asked for")
    func redactedValuesComeBack() throws {
        let asked = "http://api.test/v1/items?cursor=\(Self.jwt)&api_key=k3y9Z"
        let answered = try #require(PageURL(string: "http://api.test/v2/items?cursor=\(Self.jwt)&api_key=k3y9Z"))
        #expect(answered.redactedDescription == "http://api.test/v2/items?cursor=REDACTED&api_key=REDACTED")
        #expect(try Self.page(asked: asked, answered: answered).answeredURL == answered)
    }

    @Test("a value that is REDACTED where the URL asked for holds no credential stays as written")
    func plainValuesAreNotReplaced() throws {
        let answered = try #require(PageURL(string: "http://api.test/v2/items?q=REDACTED"))
        #expect(try Self.page(asked: "http://api.test/v1/items?q=plain", answered: answered).answeredURL == answered)
    }
}
