import PageProxyCore

/// The request path as logged: query values whose names suggest a credential are replaced by `REDACTED`.
package enum RequestLogPath {
    package static func redacted(_ request: HTTPRequestHead) -> String {
        guard let query = request.query else { return request.path }
        return request.path + "?" + CredentialRedaction.redactQuery(query)
    }
}

extension Duration {
    /// The duration in milliseconds, with microsecond precision: a whole count of microseconds divided once, so that it
    /// prints with at most three decimals (adding the two parts as doubles printed `1797.1779999999999`, contract22 F6).
    package var milliseconds: Double {
        let (seconds, attoseconds) = components
        let (microseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return Double(seconds) * 1000 }
        return Double(microseconds + attoseconds / 1_000_000_000_000) / 1000
    }
}
