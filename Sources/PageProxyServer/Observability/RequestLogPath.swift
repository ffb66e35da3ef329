import PageProxyCore

/// The request path as logged: query values whose names suggest a credential are replaced by `REDACTED`.
package enum RequestLogPath {
    package static func redacted(_ request: HTTPRequestHead) -> String {
        guard let query = request.query else { return request.path }
        return request.path + "?" + CredentialRedaction.redactQuery(query)
    }
}

extension Duration {
    /// The duration in milliseconds, with microsecond precision.
    package var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds / 1_000_000_000_000) / 1000
    }
}
