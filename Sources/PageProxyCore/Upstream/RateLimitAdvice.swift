import Foundation

/// How long an upstream asks to be left alone: `Retry-After` (seconds or an HTTP date, RFC 9110 §10.2.3), or an
/// exhausted `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (epoch seconds, as GitHub sends, or an RFC 3339
/// time, as Mastodon sends).
package enum RateLimitAdvice {
    /// The wait the response asks for, if it asks for one.
    package static func wait(in headers: HTTPHeaders, now: Date) -> Duration? {
        if let wait = retryAfter(in: headers, now: now) { return wait }
        if isExhausted(headers), let reset = resetIn(headers, now: now) { return seconds(reset.timeInterval) }
        return nil
    }

    /// `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3), as a wait from `now`.
    package static func retryAfter(in headers: HTTPHeaders, now: Date) -> Duration? {
        guard let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        if let date = HTTPDate.parse(value) { return .seconds(max(0, date.timeIntervalSince(now).rounded(.up))) }
        return nil
    }

    /// `X-RateLimit-Reset` (epoch seconds, as GitHub sends) as an exact wait from `now` (not rounded), or nil.
    /// A value past 10^11 (the year 5138 in seconds) is epoch milliseconds, as some APIs send it (attack11 H1:
    /// milliseconds read as seconds held an origin for a century). Seconds from now read as an epoch (1970) are a
    /// reset already past: harmless, the next answer corrects the count. An RFC 3339 time is read as that time:
    /// Mastodon's `2026-10-14T19:10:00.483000Z` (real12: it was no reset at all, so an exhausted Mastodon was asked on).
    package static func resetIn(_ headers: HTTPHeaders, now: Date) -> Duration? {
        guard let text = headers["X-RateLimit-Reset"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        let reset: Double
        if let number = Double(text) {
            reset = number > 1e11 ? number / 1000 : number
        } else if let date = HTTPDate.parseRFC3339(text) {
            reset = date.timeIntervalSince1970
        } else {
            return nil
        }
        let value = reset - now.timeIntervalSince1970
        guard value.isFinite else { return nil }
        return .seconds(min(max(0, value), 3.2e9))
    }

    /// The upstream's number of seconds as a wait, or nil when it is not finite (`inf`, `nan`). `Duration` traps on
    /// values past about 1.7e20 seconds, so waits are capped at a century, far past any `maxServerDelay`.
    private static func seconds(_ value: Double) -> Duration? {
        guard value.isFinite else { return nil }
        return .seconds(min(max(0, value.rounded(.up)), 3.2e9))
    }

    /// `X-RateLimit-Remaining: 0`: the next request would be refused.
    package static func isExhausted(_ headers: HTTPHeaders) -> Bool {
        headers["X-RateLimit-Remaining"]?.trimmingCharacters(in: .whitespaces) == "0"
    }
}
