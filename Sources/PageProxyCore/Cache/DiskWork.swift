import Dispatch
import Synchronization

/// Where the page cache's writes and removals run: a few serial Dispatch queues (lanes) of its own, never the
/// cooperative pool. A disk that stalls (a slow `rename`, an eviction's `unlink`s, a full journal) blocks a lane's
/// thread; the pool's threads, which run every connection, go on.
///
/// Reads stay inline when their bytes are in memory (a hop per page is what issue 13 removed); a cold read goes to
/// `CachingPageSource`'s own queue, not behind writes here.
/// Each call goes to the lane with the fewest calls in flight, so one long eviction does not queue every other
/// write behind it — except that the calls for one key go, while any of them is queued or running, to the lane of the
/// first, in the order they came: two versions of one page are never written (or one written and removed) at once on
/// two lanes, where the last rename and the store's record could name different versions (review15 B1). A waiting
/// caller is not cancelled: a write that started finishes, so the store stays coherent.
package final class DiskWork: Sendable {
    private struct State {
        /// Calls queued or running on each lane.
        var inFlight: [Int]
        /// The lane of each key with calls queued or running, and how many.
        var keyLanes: [CacheKey: (lane: Int, calls: Int)] = [:]
        /// Whether the exit's `finish` began: calls after it are refused.
        var closed = false
        /// What `finish` runs once no call is queued or running.
        var whenDrained: [@Sendable () -> Void] = []

        var drained: Bool { inFlight.allSatisfy { $0 == 0 } }
    }

    private let lanes: [DispatchQueue]
    private let state: Mutex<State>

    /// The number of the lane a call runs on (`DispatchQueue.getSpecific`), for a look at where calls went.
    package static let laneNumber = DispatchSpecificKey<Int>()

    /// Calls queued or running, on every lane.
    package var callsInFlight: Int { state.withLock { $0.inFlight.reduce(0, +) } }

    /// - Parameter lanes: how many disk calls may block at once (at least one).
    package init(lanes: Int = 4) {
        let count = max(1, lanes)
        self.lanes = (0..<count).map { number in
            let lane = DispatchQueue(label: "PageProxy.DiskWork.\(number)")
            lane.setSpecific(key: Self.laneNumber, value: number)
            return lane
        }
        state = Mutex(State(inFlight: [Int](repeating: 0, count: count)))
    }

    /// Runs `body` on a lane and returns its result; the calling task suspends meanwhile. Nil, and `body` does not
    /// run, once `finish` began: a write the exit would cut short is better not started (the store stays as it was).
    /// - Parameter evenAfterFinish: run it all the same (a removal: review9 G5, a page the upstream disowned just as
    ///   the exit began was served again after the restart). `finish` waits for it as for the others, if it is still
    ///   waiting; a removal is a rename aside and an unlink, and the next start removes what a cut leaves aside.
    /// - Parameter key: the page the call writes or removes: after the calls for it already queued, on their lane.
    package func run<T: Sendable>(
        evenAfterFinish: Bool = false, for key: CacheKey? = nil, _ body: @escaping @Sendable () -> T
    ) async -> T? {
        let chosen = state.withLock { state -> Int? in
            guard !state.closed || evenAfterFinish else { return nil }
            let lane = key.flatMap { state.keyLanes[$0]?.lane }
                ?? state.inFlight.indices.min { state.inFlight[$0] < state.inFlight[$1] } ?? 0
            state.inFlight[lane] += 1
            if let key { state.keyLanes[key, default: (lane, 0)].calls += 1 }
            return lane
        }
        guard let lane = chosen else { return nil }
        return await withCheckedContinuation { continuation in
            lanes[lane].async { [self] in
                let result = body()
                let whenDrained = state.withLock { state -> [@Sendable () -> Void] in
                    state.inFlight[lane] -= 1
                    if let key, let calls = state.keyLanes[key]?.calls {
                        state.keyLanes[key] = calls > 1 ? (lane, calls - 1) : nil
                    }
                    guard state.closed, state.drained else { return [] }
                    defer { state.whenDrained = [] }
                    return state.whenDrained
                }
                continuation.resume(returning: result)
                for call in whenDrained { call() }
            }
        }
    }

    /// Refuses every later call (but those run `evenAfterFinish`) and waits until none is queued or running, or until `timeout` has passed; true when
    /// they finished. For a clean exit (attack5 m3: a SIGTERM left the temporaries of writes the exit cut short; the
    /// next start removed them): a flight still running may ask for a write after the exit began (review8), and a
    /// stalled disk must not hold the exit forever, so it is bounded.
    package func finish(within timeout: Duration) async -> Bool {
        let answer = OnceValue<Bool>()
        let drained = state.withLock { state -> Bool in
            state.closed = true
            if !state.drained { state.whenDrained.append { answer.give(true) } }
            return state.drained
        }
        if drained { return true }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { answer.give(false) }
        return await answer.value() ?? false
    }
}
