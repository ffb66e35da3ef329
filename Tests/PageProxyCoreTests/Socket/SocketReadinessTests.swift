import Dispatch
import Synchronization
import Testing

@testable import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// Readiness from the epoll loop over raw socketpairs: events, deadlines, cancellation, close, descriptor reuse.
@Suite struct SocketReadinessTests {
    /// Watches `fd` and counts how often `onClosed` runs; the descriptor is closed there.
    private static func watch(_ fd: Int32) -> (SocketReadiness, CallCounter) {
        let counter = CallCounter()
        let readiness = SocketReadiness(fd: fd) {
            counter.increment()
            _ = Glibc.close(fd)
        }
        return (readiness, counter)
    }

    private static func send(_ byte: UInt8, to fd: Int32) {
        var byte = byte
        precondition(Glibc.write(fd, &byte, 1) == 1, "write failed")
    }

    /// Fills the socket's send buffer until the kernel takes nothing more.
    private static func fill(_ fd: Int32) {
        let chunk = [UInt8](repeating: 0, count: 65536)
        while chunk.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
    }

    /// Reads everything waiting on `fd`; returns the count.
    @discardableResult private static func drain(_ fd: Int32) -> Int {
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return total }
            total += count
        }
    }

    @Test func aWaitingReaderWakesWhenThePeerWrites() async {
        let (fd, peer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(peer) }
        let (readiness, _) = Self.watch(fd)
        defer { readiness.close() }
        async let outcome = readiness.wait(for: .read, deadline: .now + .seconds(30))
        Self.send(1, to: peer)
        #expect(await outcome == .ready)
    }

    @Test("an edge that arrives while nobody waits is kept for the next wait")
    func anEdgeBeforeTheWaitIsKept() async {
        let (fd, peer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(peer) }
        let (readiness, _) = Self.watch(fd)
        defer { readiness.close() }
        Self.send(1, to: peer)
        // Edge-triggered: the event for this byte comes once, whether before or after the wait starts.
        #expect(await readiness.wait(for: .read, deadline: .now + .seconds(30)) == .ready)
    }

    @Test func aWriterWakesWhenThePeerMakesRoom() async {
        let (fd, peer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(peer) }
        let (readiness, _) = Self.watch(fd)
        defer { readiness.close() }
        // The first wait may end at once on the edge of registration (the socket was writable then).
        Self.fill(fd)
        _ = await readiness.wait(for: .write, deadline: .now)
        Self.fill(fd)
        async let outcome = readiness.wait(for: .write, deadline: .now + .seconds(30))
        Self.drain(peer)
        #expect(await outcome == .ready)
    }

    @Test("a wait times out at its deadline; one already past ends at once", .timeLimit(.minutes(1)))
    func waitsTimeOut() async {
        let (fd, peer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(peer) }
        let (readiness, _) = Self.watch(fd)
        defer { readiness.close() }
        #expect(await readiness.wait(for: .read, deadline: .now + .milliseconds(30)) == .timedOut)
        #expect(await readiness.wait(for: .read, deadline: .now) == .timedOut)
    }

    @Test("a deadline earlier than every other one the loop holds wakes the loop", .timeLimit(.minutes(1)))
    func anEarlierDeadlineWakesTheLoop() async {
        let (longFD, longPeer) = makeNonBlockingSocketPair()
        let (shortFD, shortPeer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(longPeer); _ = Glibc.close(shortPeer) }
        let (long, _) = Self.watch(longFD)
        let (short, _) = Self.watch(shortFD)
        defer { long.close(); short.close() }
        // The loop goes to sleep for an hour for the first wait; the second must not wait that long.
        async let longOutcome = long.wait(for: .read, deadline: .now + .seconds(3600))
        #expect(await short.wait(for: .read, deadline: .now + .milliseconds(30)) == .timedOut)
        Self.send(1, to: longPeer)
        #expect(await longOutcome == .ready)
    }

    @Test func cancellingTheTaskEndsItsWait() async {
        let (fd, peer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(peer) }
        let (readiness, _) = Self.watch(fd)
        defer { readiness.close() }
        let waiter = Task { await readiness.wait(for: .read, deadline: nil) }
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
        // The next wait is not affected by the cancelled one.
        Self.send(1, to: peer)
        #expect(await readiness.wait(for: .read, deadline: .now + .seconds(30)) == .ready)
    }

    @Test("close ends both directions' waits, runs onClosed once, and later waits end at once")
    func closeEndsEveryWait() async {
        let (fd, peer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(peer) }
        let (readiness, closedCount) = Self.watch(fd)
        Self.fill(fd)
        _ = await readiness.wait(for: .write, deadline: .now)  // the edge of registration, if it is still kept
        Self.fill(fd)
        let reader = Task { await readiness.wait(for: .read, deadline: nil) }
        let writer = Task { await readiness.wait(for: .write, deadline: nil) }
        readiness.close()
        readiness.close()
        #expect(await reader.value == .cancelled)
        #expect(await writer.value == .cancelled)
        #expect(closedCount.value == 1)
        #expect(await readiness.wait(for: .read, deadline: nil) == .cancelled)
    }

    @Test("many descriptors wait at once and each wakes for its own peer")
    func manyDescriptors() async {
        // 64, not thousands: the suite's end-to-end tests, running in parallel, already hold over a thousand
        // descriptors at their peak (and Foundation's Process.run, which tests used until ChildProcess, crashed
        // reading /proc/self/fd past about 1,360 of them: swift-corelibs-foundation#5472).
        let pairs = (0..<64).map { _ in makeNonBlockingSocketPair() }
        defer { pairs.forEach { _ = Glibc.close($0.peer) } }
        let watched = pairs.map { Self.watch($0.watched).0 }
        defer { watched.forEach { $0.close() } }
        let outcomes = await withTaskGroup(of: SocketReadiness.Outcome.self) { group in
            for readiness in watched { group.addTask { await readiness.wait(for: .read, deadline: .now + .seconds(60)) } }
            for pair in pairs { Self.send(1, to: pair.peer) }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 64)
        #expect(outcomes.allSatisfy { $0 == .ready })
    }

    @Test("a descriptor number reused after close serves the new socket only")
    func descriptorReuseAfterClose() async {
        let (oldFD, oldPeer) = makeNonBlockingSocketPair()
        let (old, oldClosed) = Self.watch(oldFD)
        let oldWait = Task { await old.wait(for: .read, deadline: nil) }
        old.close()
        _ = Glibc.close(oldPeer)
        #expect(await oldWait.value == .cancelled)
        #expect(oldClosed.value == 1)
        // The lowest free numbers come back first: most often these are the two just closed.
        let (newFD, newPeer) = makeNonBlockingSocketPair()
        defer { _ = Glibc.close(newPeer) }
        let (new, _) = Self.watch(newFD)
        defer { new.close() }
        async let outcome = new.wait(for: .read, deadline: .now + .seconds(30))
        Self.send(1, to: newPeer)
        #expect(await outcome == .ready)
        #expect(await old.wait(for: .read, deadline: nil) == .cancelled)
    }
}

/// How often a closure that runs on another thread was called.
private final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
    func increment() { count.add(1, ordering: .sequentiallyConsistent) }
}
