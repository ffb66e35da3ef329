import Dispatch
import Synchronization
import Testing

@testable import PageProxyCore

/// The disk lanes: blocking calls run on threads of their own, at most one per lane at once, and a caller waits for
/// its own call's result without holding a thread of the cooperative pool.
@Suite struct DiskWorkTests {
    @Test("calls block lane threads, at most one per lane; the rest queue, and each caller gets its own result")
    func blockingCallsTakeAtMostOneThreadPerLane() async {
        let work = DiskWork(lanes: 2)
        let release = DispatchSemaphore(value: 0)
        let running = Locked((now: 0, peak: 0))
        let calls = 5
        let results = Task {
            await withTaskGroup(of: Int.self) { group in
                for n in 0..<calls {
                    group.addTask {
                        await work.run {
                            running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                            // Blocks its thread, as a stalled disk would.
                            _ = release.wait(timeout: .now() + .seconds(60))
                            running.withLock { $0.now -= 1 }
                            return n * 10
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted()
            }
        }
        // Two lanes: two calls block, the other three wait their turn (the pool, which runs this test, is not blocked).
        #expect(await yieldUntil { running.value.now == 2 })
        for _ in 0..<calls { release.signal() }
        #expect(await results.value == [0, 10, 20, 30, 40])
        #expect(running.value.peak == 2)
    }
}
