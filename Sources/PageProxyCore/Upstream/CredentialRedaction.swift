import Foundation

/// Removes credentials from what PageProxy logs or shows: query values whose names suggest a secret.
///
/// One list serves the request log's `path`, error bodies' `upstream_url` and messages that quote a link. A name
/// is compared percent-decoded and lowercased, and it is a secret when it contains any entry of the list: matching
/// parts of names (`access_token`, `X-Amz-Signature`, `clientSecret`) over-redacts a few harmless names (`monkey`),
/// which costs a log reader little, where a missed secret would leak it.
package enum CredentialRedaction {
    /// Parts of query parameter names that mark a credential, lowercase.
    package static let secretNameParts = [
        "token", "key", "secret", "pass", "pwd", "signature", "sig", "jwt", "auth", "bearer", "credential", "session",
        "sessid", "cookie", "code", "otp", "ticket", "assertion", "saml", "hmac",
    ]

    /// Whether a query parameter named `name` (as sent, possibly percent-encoded) may carry a credential.
    package static func isSecretName(_ name: some StringProtocol) -> Bool {
        let decoded = (name.utf8.contains(UInt8(ascii: "%")) ? String(name).removingPercentEncoding : nil) ?? String(name)
        let lowered = decoded.lowercased()
        return secretNameParts.contains { lowered.contains($0) }
    }

    /// `query` with the value of every secret-looking parameter replaced by `REDACTED`.
    package static func redactQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            return isSecretName(pair[..<equals]) ? "\(pair[..<equals])=REDACTED" : String(pair)
        }.joined(separator: "&")
    }

    /// A URL or link as written (`https://host/path?query#fragment`, a relative link), with its query redacted.
    package static func redactLink(_ link: String) -> String {
        guard let questionMark = link.firstIndex(of: "?") else { return link }
        let afterQuery = link[questionMark...].firstIndex(of: "#") ?? link.endIndex
        let query = String(link[link.index(after: questionMark)..<afterQuery])
        return link[...questionMark] + redactQuery(query) + link[afterQuery...]
    }
}

extension PageURL {
    /// The URL as shown in error bodies and logs: no user info (PageURL never keeps it) and no secret query values.
    public var redactedDescription: String {
        origin.description + path + (query.map { "?" + CredentialRedaction.redactQuery($0) } ?? "")
    }
}
