import Foundation
import PageProxyCore
import Synchronization

/// The mock's rate limit: at most `requests` per token (the `Authorization` value) in each fixed window of
/// `windowSeconds`, counted on arrival; past it, 429 — as GitHub's primary rate limit does, in windows short
/// enough for tests.
///
/// Every answer carries the limit's state twice: GitHub's fields (`X-RateLimit-Limit`, `-Remaining`, `-Reset`
/// in epoch seconds, `-Used`, `-Resource`) and the IETF draft's (draft-ietf-httpapi-ratelimit-headers-11 §3, §4:
/// `RateLimit-Policy: "default";q=N;w=W` and `RateLimit: "default";r=R;t=T`). A 429 adds `Retry-After`.
package final class MockRateLimiter: Sendable {
    /// A limit of `requests` per window.
    package struct Limit: Sendable, Equatable {
        package var requests: Int
        package var windowSeconds: Int = 1
    }

    /// The verdict on one request: whether it is served, and the headers that describe the limit.
    package struct Decision: Sendable {
        package var isAllowed: Bool
        package var headers: [(name: String, value: String)]
    }

    private struct Window {
        var index: Int64
        var arrivals = 0
    }

    private struct State {
        var windows: [String: Window] = [:]
        var rejected = 0
        var peakArrivals = 0
    }

    private let state = Mutex(State())
    private let clock: PageProxyClock

    /// - Parameter clock: windows are measured with its wall side (injected by tests).
    package init(clock: PageProxyClock = .system) {
        self.clock = clock
    }

    /// How many requests were answered 429.
    package var rejectedCount: Int { state.withLock { $0.rejected } }
    /// The most requests one token sent in one window, the refused ones included: what the upstream "saw".
    package var peakArrivalsPerWindow: Int { state.withLock { $0.peakArrivals } }

    /// Forgets the windows and the counts.
    package func reset() {
        state.withLock { $0 = State() }
    }

    /// Counts one request of `token` against `limit` and says whether it is served.
    package func admit(token: String, limit: Limit) -> Decision {
        let seconds = clock.wallNow().timeIntervalSince1970
        let width = Double(max(1, limit.windowSeconds))
        let index = Int64((seconds / width).rounded(.down))
        let arrivals = state.withLock { state -> Int in
            var window = state.windows[token].flatMap { $0.index == index ? $0 : nil } ?? Window(index: index)
            window.arrivals += 1
            state.windows[token] = window
            state.peakArrivals = max(state.peakArrivals, window.arrivals)
            if window.arrivals > limit.requests { state.rejected += 1 }
            // Windows of other tokens that have ended are dropped, so a long demo does not grow without bound.
            if state.windows.count > 1024 { state.windows = state.windows.filter { $0.value.index == index } }
            return window.arrivals
        }
        let used = min(arrivals, limit.requests)
        let remaining = limit.requests - used
        let resetAt = Double(index + 1) * width
        let resetIn = max(1, Int((resetAt - seconds).rounded(.up)))
        var headers: [(name: String, value: String)] = [
            ("X-RateLimit-Limit", String(limit.requests)),
            ("X-RateLimit-Remaining", String(remaining)),
            ("X-RateLimit-Reset", String(Int64(resetAt))),
            ("X-RateLimit-Used", String(used)),
            ("X-RateLimit-Resource", "core"),
            ("RateLimit-Policy", "\"default\";q=\(limit.requests);w=\(max(1, limit.windowSeconds))"),
            ("RateLimit", "\"default\";r=\(remaining);t=\(resetIn)"),
        ]
        let isAllowed = arrivals <= limit.requests
        if !isAllowed { headers.append(("Retry-After", String(resetIn))) }
        return Decision(isAllowed: isAllowed, headers: headers)
    }
}
