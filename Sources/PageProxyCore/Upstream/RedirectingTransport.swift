/// Follows an upstream's redirects within its origin, so that a page URL the upstream moves (Django's
/// `APPEND_SLASH`, a renamed resource) still answers; a redirect elsewhere is refused without a request.
///
/// DESIGN.md "Upstream behaviour": links and redirects are followed only within the configured origin (SSRF), and
/// redirects a bounded number of times, with a loop guard. The response is the final one, and what is cached is
/// cached under the URL that was asked for (the walk's own URL), since the cache sits above this transport. The URL
/// that answered is kept with the response (`answeredURLField`), stored with it in the cache too: a page's relative
/// links resolve against it (`Page.answeredURL`).
package struct RedirectingTransport: UpstreamTransport {
    /// The field a redirected response carries the URL that answered it in (RFC 3986 §5.1.3: the base URI of a
    /// redirected retrieval is the last URI used). PageProxy's own: an upstream's field of this name is removed.
    package static let answeredURLField = "PageProxy-Answered-URL"

    /// RFC 9110 §15.4: the redirects that name their target in `Location`. 303 asks for a GET, which every page
    /// request already is; 300 and 304 are not redirects to follow.
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    private let base: any UpstreamTransport
    /// How many redirects one page request may follow.
    package let maxRedirects: Int

    package init(base: any UpstreamTransport, maxRedirects: Int = 5) {
        self.base = base
        self.maxRedirects = maxRedirects
    }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        let origin = request.url.origin
        let deadline = ContinuousClock.now + timeout
        var current = request
        var visited: Set<PageURL> = [request.url]
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .timedOut(origin: origin.description) }
            var response = try await base.send(current, timeout: left, maxBodyBytes: maxBodyBytes)
            guard Self.redirectStatuses.contains(response.status.code), let location = response.headers["Location"] else {
                response.headers.remove(Self.answeredURLField)
                // Secret-named query values left out (review19 R4): the field is stored in the cache file with the
                // page. `Page.answeredURL` takes them back from the URL asked for.
                if current.url != request.url { response.headers.set(Self.answeredURLField, current.url.redactedDescription) }
                if current.url != request.url { Self.redactRedirectSecrets(in: &response, sent: current.url) }
                return response
            }
            let shown = CredentialRedaction.redactURL(location)
            guard let target = current.url.resolving(location) else {
                throw .invalidResponse(origin: origin.description, reason: "a \(response.status.code) redirect to an unusable Location: \(shown)")
            }
            guard target.origin == origin else { throw .foreignRedirect(origin: origin.description, location: shown) }
            guard visited.count <= maxRedirects, visited.insert(target).inserted else {
                throw .redirectLoop(origin: origin.description, location: shown, limit: maxRedirects)
            }
            current.url = target
        }
    }

    /// An error answer to a URL a redirect led to: the secret-named query values it carried (an OAuth `code`, a presigned
    /// URL's `X-Amz-Signature`, minted by the upstream and never shown to the client) are replaced in its body, which an
    /// error quotes (attack16 L1); the caller knows only the values of the URL it asked for.
    private static func redactRedirectSecrets(in response: inout UpstreamResponse, sent: PageURL) {
        guard !(200..<300).contains(response.status.code) else { return }
        let secrets = CredentialRedaction.secrets(in: HTTPHeaders(), query: sent.query)
        guard !secrets.isEmpty else { return }
        let text = String(decoding: response.body, as: UTF8.self)
        let redacted = CredentialRedaction.redactText(text, secrets: secrets, schemes: false)
        if redacted != text { response.body = Array(redacted.utf8) }
    }
}
