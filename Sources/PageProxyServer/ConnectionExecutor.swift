import Dispatch
import PageProxyCore
import Synchronization

/// Where one connection's task runs: on the socket loop's thread, or on the pool (issue 13).
///
/// The connection's task prefers this executor (`Server`), and its jobs go where the connection is: on the loop
/// (the default at each request) a task the loop wakes for a request runs at once on the loop's thread, with no hop
/// to the pool and back, and an answer held in memory is written from there. A request that walks, fetches or reads
/// the disk moves the connection to the pool first (`moveToPool`, through `Response.leaveSocketLoop`), and it stays
/// there until its next request begins: a connection whose requests all walk hops once a request, as it would with
/// no preference. Jobs on the pool run on Dispatch's global queue, the threads Swift's global executor uses here, as
/// this executor (so that the runtime sees the task where it prefers to be and does not hop again).
package final class ConnectionExecutor: TaskExecutor, Sendable {
    private let loop: EpollLoop
    /// Whether jobs go to the loop (true) or the pool.
    private let isOnLoop = Atomic(true)

    package init(loop: EpollLoop = .shared) {
        self.loop = loop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isOnLoop.load(ordering: .relaxed) {
            loop.enqueue(job, as: asUnownedTaskExecutor())
        } else {
            DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// The connection's next request begins: its jobs go to the loop again (it stays where it runs until it waits).
    func returnToLoop() {
        isOnLoop.store(true, ordering: .relaxed)
    }

    /// Sends the connection's jobs to the pool from now on, and moves the calling task there if it runs on the loop.
    func moveToPool() async {
        isOnLoop.store(false, ordering: .relaxed)
        guard loop.isCurrentThread else { return }
        // Resumed from the pool, the task is enqueued here again, now to the pool.
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            DispatchQueue.global().async { continuation.resume() }
        }
    }
}
