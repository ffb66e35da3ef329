import Foundation

/// What one upstream response says about the rate limit of the credentials that sent it.
///
/// Read from GitHub's fields (`X-RateLimit-Limit`, `-Remaining`, `-Reset` in epoch seconds), the IETF draft's
/// (draft-ietf-httpapi-ratelimit-headers-11: `RateLimit: "name";r=R;t=T` and `RateLimit-Policy: "name";q=Q;w=W`)
/// and `Retry-After` (RFC 9110 §10.2.3). Where both families give a count, the smaller counts.
package struct RateLimitSignal: Sendable, Equatable {
    /// Requests allowed per window (`X-RateLimit-Limit`, or the policy's `q`).
    package var limit: Int?
    /// Requests left in the current window (`X-RateLimit-Remaining`, or `r`).
    package var remaining: Int?
    /// How long until the window resets (`X-RateLimit-Reset` − now, or `t`).
    package var resetIn: Duration?
    /// The policy's window (`w`), if it says.
    package var window: Duration?
    /// `Retry-After`: the upstream asks for no request before this.
    package var retryAfter: Duration?
    /// The response refused the request for its rate: a 429, or a 403 with nothing remaining (GitHub).
    package var isRefusal = false

    /// Whether the response says anything about the rate limit.
    package var isEmpty: Bool { limit == nil && remaining == nil && resetIn == nil && retryAfter == nil && !isRefusal }
}

extension RateLimitSignal {
    /// The signal in a response with `status` and `headers`, received at `now`.
    package init(status: Int, headers: HTTPHeaders, now: Date) {
        self.init()
        limit = Self.count(headers["X-RateLimit-Limit"])
        remaining = Self.count(headers["X-RateLimit-Remaining"])
        resetIn = RateLimitAdvice.resetIn(headers, now: now)
        // RFC 9110 §10.2.3 and RFC 6585 §4: a Retry-After asks for a pause with a 503 or a 429 (and GitHub's 403 of a
        // secondary limit); on a 2xx it asks for nothing here (a polling hint on a 202), so it holds no origin
        // (attack12 M2: a 200 with `Retry-After: 120` shut the origin for every client for two minutes).
        if [429, 503, 403].contains(status) { retryAfter = RateLimitAdvice.retryAfter(in: headers, now: now) }
        readIETFFields(headers)
        isRefusal = status == 429 || (status == 403 && remaining == 0)
    }

    /// `RateLimit` and `RateLimit-Policy`: the service limit with the least remaining quota, and its policy.
    private mutating func readIETFFields(_ headers: HTTPHeaders) {
        let limits = StructuredFieldList.parse(headers.values("RateLimit"))
        let policies = StructuredFieldList.parse(headers.values("RateLimit-Policy"))
        // §4.1 — `r` is required; only the default quota unit, requests, counts requests.
        let closest = limits.compactMap { member in Self.count(member.parameters["r"]).map { (member, $0) } }.min { $0.1 < $1.1 }
        if let (member, left) = closest {
            remaining = min(remaining ?? left, left)
            // `t` is whole seconds rounded up; GitHub's epoch-second reset, when given too, is the more exact.
            if resetIn == nil, let seconds = Self.count(member.parameters["t"]) { resetIn = .seconds(seconds) }
        }
        let policy = policies.first { $0.item == closest?.0.item } ?? (policies.count == 1 ? policies.first : nil)
        if let policy, (policy.parameters["qu"] ?? "requests") == "requests" {
            if let quota = Self.count(policy.parameters["q"]) { limit = min(limit ?? quota, quota) }
            if let seconds = Self.count(policy.parameters["w"]), seconds > 0 { window = .seconds(seconds) }
        }
    }

    /// A non-negative integer field or parameter; nil for anything else.
    private static func count(_ text: String?) -> Int? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), let value = Int(text), value >= 0 else { return nil }
        return value
    }
}
