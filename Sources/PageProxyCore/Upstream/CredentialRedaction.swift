import Foundation

/// Removes credentials from what PageProxy logs or shows: query values whose names suggest a secret.
///
/// One list serves the request log's `path` and the `upstream_url` of error bodies, so the two never disagree.
package enum CredentialRedaction {
    /// A query parameter is secret when its name, percent-decoded and lowercased, contains one of these: `token`
    /// covers `access_token` and `id_token`, `key` covers `api_key` and `apikey`, `secret` covers `client_secret`.
    /// Matching parts rather than whole names errs towards hiding an ordinary value (`keyword`), never a secret one.
    package static let secretNameParts = [
        "token", "key", "secret", "password", "passwd", "pwd", "passphrase", "signature", "sig", "auth", "credential",
        "session", "code", "jwt", "bearer", "assertion", "otp",
    ]

    /// Whether a query parameter named `name` (as written in the query, percent-encoded or not) holds a secret.
    package static func isSecret(name: Substring) -> Bool {
        let decoded = (name.removingPercentEncoding ?? String(name)).lowercased()
        return secretNameParts.contains { decoded.contains($0) }
    }

    /// `query` with the value of every secret-looking parameter replaced by `REDACTED`.
    package static func redactQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            return isSecret(name: pair[..<equals]) ? "\(pair[..<equals])=REDACTED" : String(pair)
        }.joined(separator: "&")
    }
}

extension PageURL {
    /// The URL as shown in error bodies and logs: no user info (PageURL never keeps it) and no secret query values.
    public var redactedDescription: String {
        origin.description + path + (query.map { "?" + CredentialRedaction.redactQuery($0) } ?? "")
    }
}
