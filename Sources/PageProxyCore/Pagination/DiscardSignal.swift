import Synchronization

/// Ends one child of a task group early (a group cancels its children only all at once): the child runs its work
/// beside a wait for `fire()`, and whichever ends first ends it, the other cancelled. A walk's speculative fetches
/// run under one, so that a guess shown wrong stops at once.
final class DiscardSignal: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case fired
    }

    private let state = Mutex(State.idle)

    /// Ends `run`'s wait: the work is cancelled, and `run` answers `.cancelled` unless the work had already ended.
    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .fired }
            guard case .waiting(let waiter) = state else { return nil }
            return waiter
        }
        waiter?.resume()
    }

    /// The work's result, or `.cancelled` once fired first.
    func run(_ work: @escaping @Sendable () async -> Result<Page, PaginationError>) async -> Result<Page, PaginationError> {
        await withTaskGroup(of: Result<Page, PaginationError>?.self) { race in
            race.addTask { await work() }
            race.addTask {
                await self.wait()
                return nil
            }
            let first = await race.next() ?? nil
            race.cancelAll()
            return first ?? .failure(.cancelled)
        }
    }

    /// Returns once fired, or once the waiting task is cancelled (the work ended first).
    private func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let firedAlready = state.withLock { state -> Bool in
                    guard case .idle = state else { return true }
                    state = .waiting(waiter)
                    return false
                }
                if firedAlready { waiter.resume() }
            }
        } onCancel: {
            fire()
        }
    }
}
