/// What the upstream has said about one set of credentials' rate limit, and the requests it still allows.
///
/// `remaining` counts down as requests start, and is corrected by each answer's own count, less the requests
/// still in flight (the upstream may not have counted them yet). When the window resets, it refills to the limit,
/// again less the requests in flight, which may land in the new window. Until the first answer, one request at a
/// time goes: its answer says what the limit is, so concurrent walks do not each spend a request to learn it.
struct RateLimitAllowance: Sendable {
    /// Whether an answer has been seen (until then, requests go one at a time).
    private(set) var hasHeard = false
    private(set) var inFlight = 0
    /// Requests that may start before `resetAt`; nil when the upstream gave no count.
    private(set) var remaining: Int?
    private(set) var resetAt: ContinuousClock.Instant?
    private var limit: Int?
    private var window: Duration?
    /// `Retry-After`: no request before this.
    private var blockedUntil: ContinuousClock.Instant?
    /// When the upstream last answered (a long hold is probed a `probeInterval` after it), and whether a request let
    /// through a long hold is out.
    private var lastHeard: ContinuousClock.Instant?
    private var probing = false

    /// How long to wait when the count is spent and the upstream gave no reset.
    static let unknownResetWait: Duration = .seconds(1)
    /// The window is taken to reset this long after the upstream says, so that a request sent at once is not
    /// counted in the old one for a slightly different clock.
    static let resetMargin: Duration = .milliseconds(100)
    /// A hold longer than this (longer than the common windows: GitHub's hour, Twitter's 15 minutes) is not taken on
    /// trust: a `probeInterval` after each answer, one request goes alone to ask whether it still holds, and its
    /// answer renews the hold or ends it (attack11 H1: one `Retry-After` in the year 9999, or a reset in epoch
    /// milliseconds, shut an origin for every route and client until a restart).
    static let longHold: Duration = .seconds(3600)
    static let probeInterval: Duration = .seconds(60)

    /// Why a request may not start now.
    enum Hold: Equatable {
        /// Until this instant.
        case until(ContinuousClock.Instant)
        /// Until a request in flight is answered (the first answer is not in yet).
        case untilAnswered
        /// A long hold: no request but the probe goes, and the next may go at this instant (a request is refused at
        /// once rather than held up to a minute for a probe that will most likely be refused again).
        case untilProbe(ContinuousClock.Instant)
    }

    /// Whether a request may start at `now`, after refilling a window that has reset.
    mutating func hold(at now: ContinuousClock.Instant) -> Hold? {
        refillIfReset(at: now)
        guard let end = holdEnd(at: now) else {
            return !hasHeard && inFlight > 0 ? .untilAnswered : nil
        }
        guard end - now > Self.longHold else { return .until(end) }
        // The probe is out: refused at once too, not held for its answer, which may take the page timeout (attack12
        // L1); told to come back no later than the next probe may go.
        if probing { return .untilProbe(now + Self.probeInterval) }
        let nextProbe = (lastHeard ?? now) + Self.probeInterval
        guard nextProbe <= now, inFlight == 0 else { return .untilProbe(max(nextProbe, now + Self.unknownResetWait)) }
        // The probe may go; it is the probe once it starts (`start`): a request that waits on after this (for a token,
        // for the origin's concurrency) or leaves leaves no probe out that no answer would ever end (review12).
        return nil
    }

    /// When the hold now in force ends, if one is.
    private mutating func holdEnd(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if let blockedUntil, blockedUntil > now { return blockedUntil }
        guard let remaining, remaining <= 0 else { return nil }
        if let resetAt { return resetAt }
        // Spent with no reset known: try again shortly, with the count forgotten.
        resetAt = now + Self.unknownResetWait
        return resetAt
    }

    /// A request starts: during a long hold, it is the probe, and nothing else goes until it is answered.
    mutating func start(at now: ContinuousClock.Instant) {
        if let end = holdEnd(at: now), end - now > Self.longHold { probing = true }
        inFlight += 1
        if let remaining { self.remaining = remaining - 1 }
    }

    /// A request ended: with an answer's `signal` and `status`, or nil when none came (a connection error).
    mutating func finish(_ signal: RateLimitSignal?, status: Int?, at now: ContinuousClock.Instant) {
        inFlight -= 1
        let wasProbe = probing
        probing = false
        // A probe that got no answer (the upstream unreachable) was the minute's try: the next waits a `probeInterval`,
        // not one request after another through an outage (review13 N4).
        if wasProbe { lastHeard = now }
        guard let signal else { return }
        hasHeard = true
        lastHeard = now
        // Only an answer the upstream served (2xx, 3xx) ends a long hold: a 503 of a load balancer in front of it, or a
        // 401, says nothing about the quota (review12).
        let served = status.map { (200..<400).contains($0) } ?? false
        if wasProbe, served, !signal.isRefusal, signal.retryAfter == nil, signal.remaining.map({ $0 > 0 }) ?? true {
            // The probe was let through: the long hold is over; this answer alone says what holds now.
            blockedUntil = nil
            resetAt = nil
            remaining = nil
        }
        if let retryAfter = signal.retryAfter {
            blockedUntil = max(blockedUntil ?? now, now + retryAfter)
        } else if signal.isRefusal, signal.resetIn == nil {
            // Refused with no word on when to come back: pause as if the window were unknown.
            blockedUntil = max(blockedUntil ?? now, now + Self.unknownResetWait)
        }
        limit = signal.limit ?? limit
        window = signal.window ?? window
        guard var reported = signal.remaining else { return }
        if signal.isRefusal { reported = 0 }
        let reset = signal.resetIn.map { now + $0 + Self.resetMargin }
        // Requests still in flight may not be in the upstream's count yet.
        let allowed = max(0, reported - inFlight)
        if let reset, let known = resetAt, reset < known - .milliseconds(500) {
            return  // An answer from a window that has already ended says nothing about this one.
        }
        if let reset, let known = resetAt, reset <= known + .milliseconds(500), let remaining {
            // The same window: the smaller count is the truer one (answers arrive out of order).
            self.remaining = min(remaining, allowed)
        } else {
            remaining = allowed
        }
        resetAt = reset ?? resetAt
    }

    /// Whether this entry may be forgotten: nothing in flight, no wait pending.
    func isIdle(at now: ContinuousClock.Instant) -> Bool {
        inFlight == 0 && (blockedUntil.map { $0 <= now } ?? true) && (resetAt.map { $0 <= now } ?? true)
    }

    /// At the reset, the window refills to the limit (less what is in flight), or to "unknown" without one.
    private mutating func refillIfReset(at now: ContinuousClock.Instant) {
        guard let reset = resetAt, reset <= now else { return }
        remaining = limit.map { max(0, $0 - inFlight) }
        if let window, window > .zero {
            let periods = ((now - reset) / window).rounded(.down) + 1
            resetAt = reset + window * periods
        } else {
            resetAt = nil
        }
    }
}
