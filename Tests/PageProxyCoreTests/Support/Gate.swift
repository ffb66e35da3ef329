import PageProxyMock
import Synchronization

/// Holds tasks at `wait()` until a test calls `open()`; a cancelled waiter returns at once (the mock's gate).
typealias Gate = MockReleaseGate

extension MockReleaseGate {
    func wait() async { await pass() }
}

/// Yields until `condition` holds, at most `limit` times; returns whether it held. Never sleeps.
func yieldUntil(limit: Int = 100_000, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<limit {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// Yields until `condition` (which may ask an actor) holds, at most `limit` times; returns whether it held.
func yieldUntil(limit: Int = 100_000, _ condition: () async -> Bool) async -> Bool {
    for _ in 0..<limit {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Waits until `condition` holds, for at most `limit` of time; returns whether it held. For a condition another thread
/// makes true (the disk thread, a socket's peer, the kernel): a count of yields does not bound that wait on a loaded
/// machine, where the pool can spin through 100,000 yields while the other thread waits for a core (flake23b). It
/// yields first, then checks every millisecond: a bounded poll, never a fixed sleep.
func yieldUntil(within limit: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    var checks = 0
    while !condition() {
        guard ContinuousClock.now < deadline else { return condition() }
        checks += 1
        if checks < 1_000 { await Task.yield() } else { try? await Task.sleep(for: .milliseconds(1)) }
    }
    return true
}

/// A value shared between a test and the tasks it starts (a `Mutex` in a class, so closures can capture it).
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value { storage.withLock { $0 } }

    @discardableResult
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T {
        storage.withLock { body(&$0) }
    }
}
