import Synchronization

/// What `/readyz` reports: ready once started, not ready while draining or, when the config says the cache is
/// required (`cache.requiredForReadiness`, the default), while the cache directory cannot be used.
///
/// The proxy answers every request either way, uncached if it must; with the cache not required, `/readyz` stays
/// ready and says so in a `cache` field, for the operator to see.
final class ServiceStatus: Sendable {
    private let reason = Mutex<String?>("starting")
    private let cacheProblem: @Sendable () -> String?
    private let cacheEvicting: @Sendable () -> Bool
    private let cacheRequired: Bool

    init(
        cacheRequired: Bool = false, cacheProblem: @escaping @Sendable () -> String? = { nil },
        cacheEvicting: @escaping @Sendable () -> Bool = { false }
    ) {
        self.cacheRequired = cacheRequired
        self.cacheProblem = cacheProblem
        self.cacheEvicting = cacheEvicting
    }

    /// Whether the cache, over its bound at the start, is still being brought down to it (attack15 M2). Ready
    /// meanwhile: every answer is right (the pages it holds are served, a page it has no room for is sent unstored),
    /// and a probe that failed for the minutes that can take got the process restarted; `/readyz` says so.
    var isCacheEvictingAtStart: Bool { cacheEvicting() }

    /// Nil while the page cache works (or is off by configuration); otherwise why it was disabled.
    var cacheDisabledReason: String? { cacheProblem() }

    /// Nil when ready; otherwise a short reason.
    var notReadyReason: String? {
        if let reason = reason.withLock({ $0 }) { return reason }
        guard cacheRequired, let problem = cacheProblem() else { return nil }
        return "cache disabled: " + problem
    }

    func markReady() { reason.withLock { $0 = nil } }
    func markDraining() { reason.withLock { $0 = "draining" } }
}
