import Synchronization

/// What `/readyz` reports: ready once started, not ready while draining.
///
/// A cache directory that cannot be used does not make the proxy unready: it still answers every request, only
/// uncached. `/readyz` says so in a `cache` field instead, for the operator to see.
final class ServiceStatus: Sendable {
    private let reason = Mutex<String?>("starting")
    private let cacheProblem: @Sendable () -> String?

    init(cacheProblem: @escaping @Sendable () -> String? = { nil }) {
        self.cacheProblem = cacheProblem
    }

    /// Nil while the page cache works (or is off by configuration); otherwise why it was disabled.
    var cacheDisabledReason: String? { cacheProblem() }

    /// Nil when ready; otherwise a short reason.
    var notReadyReason: String? { reason.withLock { $0 } }

    func markReady() { reason.withLock { $0 = nil } }
    func markDraining() { reason.withLock { $0 = "draining" } }
}
