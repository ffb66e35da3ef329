import Dispatch
import Synchronization

/// Resolves upstream host names without blocking the cooperative pool, and with a deadline.
///
/// `getaddrinfo` blocks its thread for as long as DNS takes, and has no timeout of its own: run on the pool, a slow
/// resolver would hold one of its few threads. The lookup runs on a Dispatch queue of its own instead, and the
/// caller waits on a continuation that the answer, the deadline or cancellation resumes, whichever comes first (a
/// lookup that outlives its caller finishes on its own thread, and its answer is dropped).
package enum AddressResolver {
    /// A blocking lookup: `SocketAddress.resolve` in production, a gated one in tests.
    package typealias Lookup = @Sendable (_ host: String, _ port: Int) throws(SocketError) -> SocketAddress

    private static let queue = DispatchQueue(label: "pageproxy.resolver", attributes: .concurrent)

    /// The address of `host`; a literal is parsed at once, a name looked up off the pool.
    /// - Throws: `.timedOut` when `deadline` passes first, `.cancelled` when the task is cancelled, or the lookup's
    ///   error (`.invalidAddress` for a name that does not resolve).
    package static func resolve(
        host: String, port: Int, deadline: ContinuousClock.Instant,
        lookup: @escaping Lookup = { host, port throws(SocketError) in
            try SocketAddress.resolve(host: host, port: port)
        }
    ) async throws(SocketError) -> SocketAddress {
        if let literal = try? SocketAddress(host: host, port: port) { return literal }
        let outcome = Mutex<CheckedContinuation<Result<SocketAddress, SocketError>, Never>?>(nil)
        let finish: @Sendable (Result<SocketAddress, SocketError>) -> Void = { result in
            outcome.withLock { continuation in
                continuation?.resume(returning: result)
                continuation = nil
            }
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<SocketAddress, SocketError>, Never>) in
                outcome.withLock { $0 = continuation }
                guard !Task.isCancelled else { return finish(.failure(.cancelled)) }
                queue.async {
                    finish(Result { () throws(SocketError) in try lookup(host, port) })
                }
                // A Dispatch timer runs on Dispatch's clock: it is given the time left, measured on the deadline's.
                let timeLeft = deadline - ContinuousClock.now
                queue.asyncAfter(deadline: .now() + timeLeft.dispatchInterval) { finish(.failure(.timedOut)) }
            }
        } onCancel: {
            finish(.failure(.cancelled))
        }
        return try result.get()
    }
}
