import Synchronization

/// What `/readyz` reports: ready once started, not ready while draining.
final class ServiceStatus: Sendable {
    private let reason = Mutex<String?>("starting")

    /// Nil when ready; otherwise a short reason.
    var notReadyReason: String? { reason.withLock { $0 } }

    func markReady() { reason.withLock { $0 = nil } }
    func markDraining() { reason.withLock { $0 = "draining" } }
}
