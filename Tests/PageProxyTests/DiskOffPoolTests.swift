import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 15: blocking disk calls run off the cooperative pool. Cache writes are held on their disk threads (a disk
/// that stalls), more of them than the pool has threads; the server still answers everything that needs no write.
@Suite struct DiskOffPoolTests {
    /// Holds cache writes on the thread that runs them until opened.
    final class DiskWriteGate: Sendable {
        private let state = Mutex<(open: Bool, held: Int, waiting: Int)>((true, 0, 0))
        private let release = DispatchSemaphore(value: 0)

        var isOpen: Bool { state.withLock { $0.open } }
        /// How many writes it has held since it closed.
        var held: Int { state.withLock { $0.held } }

        /// Blocks the calling thread while the gate is closed.
        func hold() {
            let waits = state.withLock { state -> Bool in
                guard !state.open else { return false }
                state.held += 1
                state.waiting += 1
                return true
            }
            if waits { release.wait() }
        }

        /// Closes the gate; it opens by itself after `failsafe`, so that a server that wedged (the bug this suite
        /// guards against) still ends the test, which then fails on what it recorded.
        func close(failsafe: Duration) {
            state.withLock { $0 = (false, 0, 0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(failsafe.components.seconds))) { [self] in open() }
        }

        func open() {
            let waiting = state.withLock { state -> Int in
                defer { state.waiting = 0 }
                state.open = true
                return state.waiting
            }
            for _ in 0..<waiting { release.signal() }
        }
    }

    @Test("while cache writes are stalled on the disk, cache hits, /healthz and an uncached route are still answered")
    func stalledWritesDoNotStallOtherRequests() async throws {
        let gate = DiskWriteGate()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Fresh for a day: the hit below may come up to a minute after the warm walk (the poll's bound).
        let cached = SchemeRoutes.all[2].freshForADay
        var uncached = cached
        uncached.name = "uncached"
        uncached.configure = { $0.ttl = .zero }
        let cache = CacheConfig(directory: root, maxBytes: 64 << 20, requiredForReadiness: true)
        try await TestStack.run(routes: [cached, uncached], configure: { $0.cache = cache }, onCacheWrite: { _ in gate.hold() }) { stack in
            let ndjson = ["Accept": "application/x-ndjson"]
            let warm = try await stack.get("/github?mock_total=10", headers: ndjson)
            #expect(warm.status == 200)
            gate.close(failsafe: .seconds(120))
            // More stalled writes than the cooperative pool has threads: inline, they would take every one of them.
            let writers = ProcessInfo.processInfo.activeProcessorCount + 2
            let misses = (0..<writers).map { n in
                Task { try await stack.get("/github?mock_total=10&n=\(n)", headers: ndjson) }
            }
            // As many as the disk lanes run at once (4), or all of them: a bound, long before the gate's failsafe.
            try await poll("the writes are held on the disk", limit: .seconds(60)) { gate.held >= min(writers, 4) }

            let upstreamBefore = stack.mock.log.count
            let hit = try await stack.get("/github?mock_total=10", headers: ndjson)
            let upstreamAfterHit = stack.mock.log.count
            let hitWhileHeld = !gate.isOpen
            let health = try await stack.get("/healthz")
            let healthWhileHeld = !gate.isOpen
            let bypass = try await stack.get("/uncached?mock_total=10", headers: ndjson)
            let bypassWhileHeld = !gate.isOpen
            #expect(hit.status == 200 && hitWhileHeld)
            #expect(hit.body == warm.body)
            #expect(upstreamAfterHit == upstreamBefore, "the hit came from the disk cache")
            #expect(health.status == 200 && healthWhileHeld)
            #expect(bypass.status == 200 && bypassWhileHeld)
            #expect(stack.mock.log.count == upstreamBefore + 1, "the uncached route went upstream")

            gate.open()
            for miss in misses { #expect(try await miss.value.status == 200) }
            // The held writes landed once the disk moved again.
            let upstreamBeforeAgain = stack.mock.log.count
            let again = try await stack.get("/github?mock_total=10&n=0", headers: ndjson)
            #expect(again.status == 200)
            #expect(stack.mock.log.count == upstreamBeforeAgain)
        }
    }
}
