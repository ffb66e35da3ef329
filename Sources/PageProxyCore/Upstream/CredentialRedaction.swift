/// Removes credentials from what PageProxy logs or shows: query values whose names suggest a secret.
package enum CredentialRedaction {
    private static let secretNames = [
        "token", "key", "secret", "password", "passwd", "signature", "sig", "auth", "credential", "session", "code",
    ]

    /// `query` with the value of every secret-looking parameter replaced by `REDACTED`.
    package static func redactQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals].lowercased()
            return secretNames.contains(where: { name.contains($0) }) ? "\(pair[..<equals])=REDACTED" : String(pair)
        }.joined(separator: "&")
    }
}

extension PageURL {
    /// The URL as shown in error bodies and logs: no user info (PageURL never keeps it) and no secret query values.
    public var redactedDescription: String {
        origin.description + path + (query.map { "?" + CredentialRedaction.redactQuery($0) } ?? "")
    }
}
