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
                        } ?? -1
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted()
            }
        }
        // Two lanes: two calls block, the other three wait their turn (the pool, which runs this test, is not blocked).
        #expect(await yieldUntil(within: .seconds(20)) { running.value.now == 2 })
        for _ in 0..<calls { release.signal() }
        #expect(await results.value == [0, 10, 20, 30, 40])
        #expect(running.value.peak == 2)
    }

    @Test("finish waits for the calls queued before it, bounded: a blocked call makes it time out, a released one not")
    func finishWaitsForQueuedCalls() async {
        let work = DiskWork(lanes: 2)
        let release = DispatchSemaphore(value: 0)
        let done = Locked(false)
        let started = Locked(false)
        let call = Task {
            await work.run {
                started.withLock { $0 = true }
                _ = release.wait(timeout: .now() + .seconds(60))
                done.withLock { $0 = true }
            }
        }
        #expect(await yieldUntil(within: .seconds(20)) { started.value })
        #expect(await work.finish(within: .milliseconds(20)) == false)
        release.signal()
        #expect(await work.finish(within: .seconds(30)))
        #expect(done.value)
        await call.value
        #expect(await DiskWork(lanes: 3).finish(within: .seconds(30)))
    }

    @Test("once finish began, a later call is refused (the exit would cut it short) and finish waits for the earlier")
    func callsAfterFinishBeganAreRefused() async {
        let work = DiskWork(lanes: 2)
        let release = DispatchSemaphore(value: 0)
        let started = Locked(false)
        let ran = Locked([String]())
        let earlier = Task {
            await work.run {
                started.withLock { $0 = true }
                _ = release.wait(timeout: .now() + .seconds(60))
                ran.withLock { $0.append("earlier") }
            }
        }
        #expect(await yieldUntil(within: .seconds(20)) { started.value })
        // The exit begins while the earlier call blocks its lane; the other lane is free.
        #expect(await work.finish(within: .milliseconds(20)) == false)
        let later = await work.run {
            ran.withLock { $0.append("later") }
            return 1
        }
        #expect(later == nil)
        release.signal()
        #expect(await work.finish(within: .seconds(30)))
        #expect(ran.value == ["earlier"])
        #expect(await earlier.value != nil)
    }

    @Test("review9 G5: a call run evenAfterFinish (a removal) runs once finish began, and finish waits for it")
    func aRemovalRunsAfterFinishBegan() async {
        let work = DiskWork(lanes: 2)
        let release = DispatchSemaphore(value: 0)
        let started = Locked(false)
        let earlier = Task {
            await work.run {
                started.withLock { $0 = true }
                _ = release.wait(timeout: .now() + .seconds(60))
            }
        }
        #expect(await yieldUntil(within: .seconds(20)) { started.value })
        #expect(await work.finish(within: .milliseconds(20)) == false)
        #expect(await work.run(evenAfterFinish: true) { 7 } == 7)
        #expect(await work.run { 8 } == nil)
        release.signal()
        #expect(await work.finish(within: .seconds(30)))
        // After finish has returned too.
        #expect(await work.run(evenAfterFinish: true) { 9 } == 9)
        _ = await earlier.value
    }

    @Test("the calls for one key run one after the other, on the lane of the first, while other keys take the least busy lane (review15 B1)")
    func callsForOneKeyAreOrdered() async {
        let work = DiskWork(lanes: 3)
        let key = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!))
        let other = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=2")!))
        let lane: @Sendable () -> Int? = { DispatchQueue.getSpecific(key: DiskWork.laneNumber) }
        let events = Locked<[String]>([])
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            await work.run(for: key) {
                events.withLock { $0.append("first starts") }
                _ = release.wait(timeout: .now() + .seconds(60))
                events.withLock { $0.append("first ends") }
                return lane()
            }
        }
        #expect(await yieldUntil(within: .seconds(20)) { events.value == ["first starts"] })
        let second = Task { await work.run(for: key) { events.withLock { $0.append("second starts") }; return lane() } }
        #expect(await yieldUntil(within: .seconds(20)) { work.callsInFlight == 2 })
        // Another page's write goes on meanwhile, on a lane with nothing queued.
        let thirdLane = await work.run(for: other) { lane() }
        release.signal()
        let (firstLane, secondLane) = (await first.value, await second.value)
        #expect(firstLane == secondLane, "the second write of the page queues behind the first")
        #expect(thirdLane != firstLane, "another page's write takes a lane with nothing queued")
        #expect(events.value == ["first starts", "first ends", "second starts"])
    }
}
