import Dispatch
import Foundation
import PageProxyCore

/// Tests only: runs `body`, which blocks (a semaphore, a fork, work on another thread it waits for), on a new thread
/// of its own, and returns its result; the caller's task is suspended meanwhile. A blocking call made from a task
/// holds a thread of the cooperative pool, which has one thread a core: on a 2-core machine two such calls stall every
/// other task of the process (the in-process servers' answers too) until they return.
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

extension DispatchSemaphore {
    /// Tests only: waits for a signal, at most `limit`, without holding a thread of the cooperative pool; whether
    /// it came.
    package func isSignalled(within limit: Duration) async -> Bool {
        await onOwnThread { self.wait(timeout: .now() + limit.timeInterval) == .success }
    }
}
