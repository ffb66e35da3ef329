import PageProxyMock
import Synchronization
import Testing

@testable import PageProxyCore

/// Collapsing: one run of the work per key at a time, and one caller leaving never fails another.
@Suite struct FetchCollapserTests {
    /// Work held at `gate` that notes whether it was cancelled there.
    private static func gatedWork(_ gate: Gate, value: Int, sawCancellation: Locked<Bool>) -> @Sendable () async -> Int {
        {
            await gate.wait()
            sawCancellation.withLock { $0 = Task.isCancelled }
            return value
        }
    }

    @Test func twentyConcurrentCallersRunTheWorkOnce() async {
        let collapser = FetchCollapser<String, Int>()
        let runs = Locked(0)
        let gate = Gate()
        let results = await withTaskGroup(of: (Int?, Bool).self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let (value, joined) = await collapser.value(for: "page-1") {
                        runs.withLock { $0 += 1 }
                        await gate.wait()
                        return 42
                    }
                    return (value, joined)
                }
            }
            #expect(await yieldUntil { await collapser.waiterCount(for: "page-1") == 20 })
            gate.open()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(results.allSatisfy { $0.0 == 42 })
        #expect(results.filter { $0.1 }.count == 19)
        #expect(await collapser.inFlightCount == 0)
    }

    @Test func differentKeysRunSeparately() async {
        let collapser = FetchCollapser<String, String>()
        let runs = Locked(0)
        async let one = collapser.value(for: "a") { runs.withLock { $0 += 1 }; return "a" }
        async let two = collapser.value(for: "b") { runs.withLock { $0 += 1 }; return "b" }
        let (first, second) = await (one, two)
        #expect(first.value == "a")
        #expect(second.value == "b")
        #expect(runs.withLock { $0 } == 2)
    }

    @Test("the count of every waiting caller adds up the callers of each key, those of a flight someone left too")
    func waiterCountOfEveryKey() async {
        let collapser = FetchCollapser<String, Int>()
        let gate = Gate()
        let work: @Sendable () async -> Int = {
            await gate.wait()
            return 1
        }
        let leaving = Task { await collapser.value(for: "a", work: work) }
        #expect(await yieldUntil { gate.waiting == 1 })
        let staying = Task { await collapser.value(for: "a", work: work) }
        let other = Task { await collapser.value(for: "b", work: work) }
        #expect(await yieldUntil { await collapser.waiterCount == 3 })
        // One caller of "a" leaves: its flight is retired, and still counted for the caller left in it.
        leaving.cancel()
        #expect(await yieldUntil { await collapser.waiterCount == 2 })
        #expect(await collapser.waiterCount(for: "a") == 1)
        gate.open()
        #expect(await staying.value.value == 1)
        #expect(await other.value.value == 1)
        #expect(await collapser.waiterCount == 0)
    }

    @Test func theFirstCallerLeavingDoesNotFailTheOthers() async {
        let collapser = FetchCollapser<String, Int>()
        let gate = Gate()
        let workSawCancellation = Locked(false)
        let work = Self.gatedWork(gate, value: 7, sawCancellation: workSawCancellation)
        let leader = Task { await collapser.value(for: "k", work: work) }
        #expect(await yieldUntil { gate.waiting == 1 })
        let follower = Task { await collapser.value(for: "k", work: work) }
        #expect(await yieldUntil { await collapser.waiterCount(for: "k") == 2 })
        leader.cancel()
        // The cancelled caller stops waiting at once, before the work ends.
        #expect(await leader.value.value == nil)
        gate.open()
        let followed = await follower.value
        #expect(followed.value == 7)
        #expect(followed.joined)
        #expect(workSawCancellation.withLock { $0 } == false)
    }

    @Test func whenEveryCallerLeavesTheWorkIsCancelledAndTheNextCallStartsAfresh() async {
        let collapser = FetchCollapser<String, Int>()
        let gate = Gate()
        let runs = Locked(0)
        let cancelledRuns = Locked(0)
        let work: @Sendable () async -> Int = {
            let run = runs.withLock { $0 += 1; return $0 }
            if run == 1 {
                await gate.wait()
                if Task.isCancelled { cancelledRuns.withLock { $0 += 1 } }
            }
            return run
        }
        let only = Task { await collapser.value(for: "k", work: work) }
        #expect(await yieldUntil { gate.waiting == 1 })
        only.cancel()
        #expect(await only.value.value == nil)
        #expect(await yieldUntil { cancelledRuns.withLock { $0 } == 1 })
        let next = await collapser.value(for: "k", work: work)
        #expect(next.value == 2)
        #expect(!next.joined)
    }

    @Test("callers that leave one by one get nil at once; the work is cancelled only when the last one leaves")
    func theLastCallerLeavingCancelsTheWork() async {
        let collapser = FetchCollapser<String, Int>()
        let gate = Gate()
        let workSawCancellation = Locked(false)
        let work = Self.gatedWork(gate, value: 1, sawCancellation: workSawCancellation)
        var callers: [Task<(value: Int?, joined: Bool), Never>] = []
        for count in 1...3 {
            callers.append(Task { await collapser.value(for: "k", work: work) })
            #expect(await yieldUntil { await collapser.waiterCount(for: "k") == count })
        }
        for (index, caller) in callers.enumerated() {
            caller.cancel()
            #expect(await caller.value.value == nil)
            #expect(await collapser.waiterCount(for: "k") == 2 - index)
            if index < 2 { #expect(gate.waiting == 1) }
        }
        // The gate stays shut: only the cancellation of the last caller ends the work.
        #expect(await yieldUntil { workSawCancellation.withLock { $0 } })
        #expect(await collapser.inFlightCount == 0)
    }

    @Test("after a caller left a flight that others still wait for, the next caller (a retry) starts a fresh try", .timeLimit(.minutes(1)))
    func aFlightSomeoneLeftIsJoinedByNoOne() async {
        let collapser = FetchCollapser<String, Int>()
        let gate = Gate()
        let runs = Locked(0)
        let work: @Sendable () async -> Int = {
            let run = runs.withLock { $0 += 1; return $0 }
            // The first try hangs (a dead connection) until the gate opens; a fresh one answers at once.
            if run == 1 { await gate.wait() }
            return run
        }
        let timedOut = Task { await collapser.value(for: "k", work: work) }
        #expect(await yieldUntil { gate.waiting == 1 })
        let patient = Task { await collapser.value(for: "k", work: work) }
        #expect(await yieldUntil { await collapser.waiterCount(for: "k") == 2 })
        // The first caller's page time passes: it leaves, and retries.
        timedOut.cancel()
        #expect(await timedOut.value.value == nil)
        let retry = await collapser.value(for: "k", work: work)
        #expect(retry.value == 2)
        #expect(!retry.joined)
        #expect(runs.withLock { $0 } == 2)
        // The hung try still answers the caller that stayed with it.
        #expect(await collapser.waiterCount(for: "k") == 1)
        gate.open()
        #expect(await patient.value.value == 1)
        #expect(await collapser.inFlightCount == 0)
    }

    @Test("a flight one caller left is told it is superseded once a newer flight of its key starts; the newer one is not (review15 B1)", .timeLimit(.minutes(1)))
    func aFlightSomeoneLeftIsSupersededByTheNextOne() async {
        let collapser = FetchCollapser<String, Bool>()
        let gate = Gate()
        let flights = Locked<[FlightDeadline]>([])
        let work: @Sendable (FlightDeadline) async -> Bool = { flight in
            let run = flights.withLock { $0.append(flight); return $0.count }
            if run == 1 { await gate.wait() }
            return flight.isSuperseded
        }
        let timedOut = Task { await collapser.value(for: "k", until: nil, work: work) }
        #expect(await yieldUntil { gate.waiting == 1 })
        let patient = Task { await collapser.value(for: "k", until: nil, work: work) }
        #expect(await yieldUntil { await collapser.waiterCount(for: "k") == 2 })
        // Another key's flight supersedes nothing.
        _ = await collapser.value(for: "other", until: nil, work: work)
        #expect(flights.value.first?.isSuperseded == false)
        timedOut.cancel()
        _ = await timedOut.value
        // The retry's flight: newer, not superseded; the first one is.
        #expect(await collapser.value(for: "k", until: nil, work: work).value == false)
        gate.open()
        #expect(await patient.value.value == true, "the older flight's answer still reaches its caller, marked superseded")
    }

    @Test func aCallerAlreadyCancelledGetsNilAndStartsNothing() async {
        let collapser = FetchCollapser<String, Int>()
        let runs = Locked(0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await collapser.value(for: "k") { runs.withLock { $0 += 1 }; return 1 }
        }
        #expect(await task.value.value == nil)
        #expect(await collapser.inFlightCount == 0)
        #expect(runs.withLock { $0 } == 0)
    }
}
