import Foundation
import Synchronization

/// One upstream origin's request budget, shared by every page fetch of every client request in the process.
///
/// Three limits apply at once, each optional: at most `maxConcurrent` requests in flight, at most
/// `requestsPerSecond` started (a token bucket holding one second's worth), and what the upstream itself says
/// (`Retry-After`, `X-RateLimit-*`, the IETF `RateLimit` fields), kept per set of credentials because upstreams
/// count per token. A fetch that may not start waits; when the wait would end past its request's deadline, it fails
/// at once with `UpstreamError.rateLimited`, so that a walk neither spends a request to learn the budget is spent
/// nor holds its client for nothing.
/// A hold longer than `RateLimitAllowance.longHold` (a `Retry-After` of a day, a reset in 9999) is not waited for
/// even when the deadline would allow it: one request a `probeInterval` asks the upstream again, and every other fails
/// at once with a wait no longer than the next probe (`Hold.untilProbe`).
package actor OriginBudget {
    /// The limits an origin's routes configure (the strictest of them when several routes share the origin).
    package struct Configuration: Sendable, Equatable {
        package var maxConcurrent: Int?
        package var requestsPerSecond: Double?
        /// Whether the upstream's own rate-limit fields pace the requests.
        package var followsUpstreamSignals: Bool

        package init(maxConcurrent: Int? = nil, requestsPerSecond: Double? = nil, followsUpstreamSignals: Bool = true) {
            self.maxConcurrent = maxConcurrent
            self.requestsPerSecond = requestsPerSecond
            self.followsUpstreamSignals = followsUpstreamSignals
        }

        /// Whether any limit applies (an inactive budget is never consulted).
        package var isActive: Bool { maxConcurrent != nil || requestsPerSecond != nil || followsUpstreamSignals }

        /// The stricter of both: the lower limits, and the upstream's signals if either follows them.
        package func merged(with other: Configuration) -> Configuration {
            Configuration(
                maxConcurrent: [maxConcurrent, other.maxConcurrent].compactMap { $0 }.min(),
                requestsPerSecond: [requestsPerSecond, other.requestsPerSecond].compactMap { $0 }.min(),
                followsUpstreamSignals: followsUpstreamSignals || other.followsUpstreamSignals)
        }
    }

    /// Counters for `/metrics`.
    package struct Statistics: Sendable, Equatable {
        /// Requests that had to wait before starting, and the total time they waited.
        package var waits = 0
        package var waitedSeconds = 0.0
        /// Requests failed at once because the wait would have passed their deadline.
        package var refusals = 0
        /// Upstream answers that refused a request for its rate (429, or 403 with nothing remaining).
        package var upstreamRefusals = 0
        /// Requests in flight now, and the token bucket's content (nil without `requestsPerSecond`).
        package var inFlight = 0
        package var tokens: Double?
    }

    /// Proof that a request started; handed back to `finish`.
    package struct Permit: Sendable {
        fileprivate let partition: String
    }

    package nonisolated let origin: String
    package nonisolated let configuration: Configuration
    private let clock: PageProxyClock
    private var inFlight = 0
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant
    private var allowances: [String: RateLimitAllowance] = [:]
    /// `allowances` is pruned when it grows past this (`prunePartitions`).
    private var pruneAbove = OriginBudget.maxPartitions
    /// How many times it was, and how many credentials it keeps (for tests).
    private(set) var prunes = 0
    var partitionCount: Int { allowances.count }
    var keptPartitions: Set<String> { Set(allowances.keys) }
    private var answerWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    /// Kept behind a lock, not in the actor, so that `/metrics` reads them without awaiting.
    private nonisolated let statistics = Mutex(Statistics())

    package init(origin: String, configuration: Configuration, clock: PageProxyClock = .system) {
        self.origin = origin
        self.configuration = configuration
        self.clock = clock
        tokens = Self.bucketSize(configuration)
        refilledAt = clock.now()
    }

    /// The counters as they are now.
    package nonisolated var snapshot: Statistics { statistics.withLock { $0 } }

    /// Waits until a request with these credentials may start, and counts it as started.
    /// - Parameters:
    ///   - partition: the credentials' identity (`partition(of:)`): the upstream's counts are per token.
    ///   - deadline: the client request's; a wait that would end after it fails at once.
    /// - Throws: `.rateLimited` when the wait would pass the deadline; `.timedOut` when a wait for an answer in
    ///   flight did; `.cancelled` when the client went away.
    package func acquire(partition: String, deadline: ContinuousClock.Instant) async throws(UpstreamError) -> Permit {
        let started = clock.now()
        var waited = false
        while true {
            guard !Task.isCancelled else { throw .cancelled }
            let now = clock.now()
            guard now < deadline else { throw .timedOut(origin: origin) }
            refillTokens(at: now)
            var allowance = allowances[partition] ?? RateLimitAllowance()
            let hold = configuration.followsUpstreamSignals ? allowance.hold(at: now) : nil
            allowances[partition] = allowance
            if case .untilProbe(let instant) = hold {
                statistics.withLock { $0.refusals += 1 }
                throw .rateLimited(origin: origin, wait: instant - now)
            }
            var until: ContinuousClock.Instant?
            if case .until(let instant) = hold { until = instant }
            if let rate = configuration.requestsPerSecond, tokens < 1 {
                let refill = now + .seconds((1 - tokens) / rate)
                until = max(until ?? refill, refill)
            }
            if let until {
                guard until <= deadline else {
                    statistics.withLock { $0.refusals += 1 }
                    throw .rateLimited(origin: origin, wait: until - now)
                }
                waited = true
                do {
                    try await clock.sleep(until)
                } catch {
                    throw .cancelled
                }
                continue
            }
            if hold == .untilAnswered || configuration.maxConcurrent.map({ inFlight >= $0 }) == true {
                waited = true
                await waitForAnAnswer()
                continue
            }
            inFlight += 1
            if configuration.requestsPerSecond != nil { tokens -= 1 }
            allowance.start(at: now)
            allowances[partition] = allowance
            let waitedSeconds = waited ? (clock.now() - started).timeInterval : nil
            publish { statistics in
                if let waitedSeconds {
                    statistics.waits += 1
                    statistics.waitedSeconds += waitedSeconds
                }
            }
            return Permit(partition: partition)
        }
    }

    /// A started request ended: with its answer's status and headers, or with none (`nil`, a connection error).
    package func finish(_ permit: Permit, status: Int?, headers: HTTPHeaders) {
        inFlight -= 1
        let now = clock.now()
        let signal = status.map { RateLimitSignal(status: $0, headers: headers, now: clock.wallNow()) }
        publish { statistics in
            if signal?.isRefusal == true { statistics.upstreamRefusals += 1 }
        }
        var allowance = allowances[permit.partition] ?? RateLimitAllowance()
        allowance.finish(signal, status: status, at: now)
        allowances[permit.partition] = allowance
        if allowances.count > pruneAbove { prunePartitions(at: now) }
        let waiters = answerWaiters
        answerWaiters = [:]
        for waiter in waiters.values { waiter.resume() }
    }

    /// Credentials kept apart past this many only while they wait or count down a window.
    static let maxPartitions = 1024
    /// Past this many even those are forgotten, but for the ones with a request in flight: the next request with
    /// forgotten credentials goes alone and learns the limit again.
    static let maxHeldPartitions = 16_384

    /// Drops the idle credentials' allowances (and past `maxHeldPartitions` all but those in flight). The next prune
    /// waits until the count doubles what survived: a crowd of credentials each held for an hour was filtered on
    /// every answer, its CPU growing with the crowd (attack12 M3: 0.5 → 11.6 ms a request at 40,000 tokens).
    private func prunePartitions(at now: ContinuousClock.Instant) {
        allowances = allowances.filter { !$0.value.isIdle(at: now) }
        if allowances.count > Self.maxHeldPartitions { allowances = allowances.filter { $0.value.inFlight > 0 } }
        pruneAbove = max(Self.maxPartitions, allowances.count * 2)
        prunes += 1
    }

    /// The identity of the credentials a request carries: a SHA-256 of its header fields whose names may carry a
    /// credential (`Authorization`, `Cookie`, `X-Api-Key`, `Private-Token`, ...: `CredentialRedaction.isSecretName`)
    /// and of its query parameters named as API keys are (`credentialQueryNames`), so no token is kept in the clear.
    /// Only those: a field that differs per request (`X-Request-Id`, `traceparent`) or per route (`Accept`, a static
    /// `X-Client`) must not give the same token allowances of its own, each spending the upstream's one count (attack12
    /// M1); nor may a cursor the walk sends back (`pageToken`, `$skiptoken`, `continuation-token`: the redaction's
    /// broad names would match them), which changes every page (review14 F1).
    package nonisolated static func partition(of headers: HTTPHeaders, url: PageURL) -> String {
        var hasher = SHA256()
        func add(_ kind: String, _ name: String, _ value: some StringProtocol) {
            let line = Array((kind + name + ":" + value).utf8)
            hasher.update(Array(String(line.count).utf8) + [0x3A] + line)
        }
        for field in headers where CredentialRedaction.isSecretName(field.name) {
            let name = field.name.lowercased()
            guard !perRequestFieldNames.contains(name) else { continue }
            add("h", name, identity(name, field.value))
        }
        for pair in url.queryPairs where credentialQueryNames.contains(pair.name.lowercased()) {
            add("q", pair.name.lowercased(), pair.value)
        }
        return SHA256.hex(hasher.finalize())
    }

    /// Query parameters that name the caller (API keys in the URL), by their exact names.
    package static let credentialQueryNames: Set<String> = [
        "access_token", "api_key", "apikey", "api-key", "key", "token", "auth_token", "client_id", "client_secret",
        "private_token", "app_key", "app_id", "subscription-key", "x-amz-credential",
    ]

    /// Fields with a credential-like name that differ on every request by design: not the caller's identity.
    static let perRequestFieldNames: Set<String> = ["idempotency-key", "x-hub-signature", "x-hub-signature-256"]

    /// A field's value as the caller's identity. Signatures differ on every request; the key that signs does not:
    /// for AWS Signature Version 4 only its `Credential=` (the access key, date and scope), for HTTP message
    /// signatures (RFC 9421, draft-cavage) only the `keyid`s (`SigningKeyID`). Any other value whole.
    static func identity(_ name: String, _ value: String) -> Substring {
        if SigningKeyID.isSignatureField(name) { return Substring(SigningKeyID.keyIDs(in: value)) }
        guard name == "authorization" else { return Substring(value) }
        if SigningKeyID.isSignatureAuthorization(value) { return Substring(SigningKeyID.keyIDs(in: value)) }
        guard value.hasPrefix("AWS4-"), let start = value.range(of: "Credential=") else { return Substring(value) }
        let rest = value[start.lowerBound...]
        return rest.prefix { $0 != "," && $0 != " " }
    }

    /// Updates the published counters, with the gauges as they are now.
    private func publish(_ update: (inout Statistics) -> Void) {
        let (inFlight, tokens) = (self.inFlight, configuration.requestsPerSecond.map { _ in self.tokens })
        statistics.withLock { statistics in
            update(&statistics)
            statistics.inFlight = inFlight
            statistics.tokens = tokens
        }
    }

    /// Suspends until any request in flight is answered (or the waiting task is cancelled).
    private func waitForAnAnswer() async {
        nextWaiter += 1
        let id = nextWaiter
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    answerWaiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        answerWaiters.removeValue(forKey: id)?.resume()
    }

    /// Adds the tokens earned since the last refill, up to one second's worth.
    private func refillTokens(at now: ContinuousClock.Instant) {
        guard let rate = configuration.requestsPerSecond else { return }
        tokens = min(Self.bucketSize(configuration), tokens + (now - refilledAt).timeInterval * rate)
        refilledAt = now
    }

    private static func bucketSize(_ configuration: Configuration) -> Double {
        max(1, configuration.requestsPerSecond ?? 1)
    }
}
