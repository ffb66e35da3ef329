import Synchronization

/// Hands a walk's pages, one at a time, from the task that walks (`PageWalker.walk`) to the one that iterates: the
/// walk waits in `give` until the iterator has taken the page, so it holds the window's fetches and at most one page
/// given and not taken yet, and stops fetching when the iterator stops taking.
final class PageHandOff: Sendable {
    /// A page, nil at the end, or the error that ended the walk.
    typealias Handed = Result<Page?, PaginationError>

    private struct State {
        /// Given and not taken yet.
        var given: Handed?
        /// The walk, waiting until `given` is taken.
        var giver: CheckedContinuation<Void, Never>?
        /// The iterator, waiting for the next page.
        var taker: CheckedContinuation<Handed, Never>?
        /// The walk's task was cancelled: `give` waits no more. Kept, since the cancellation handler may run before
        /// `give` has stored its continuation (a task cancelled before it called `give`): without the mark that
        /// continuation was never resumed, and the walk's task, its fetches and its pages were held for good (the
        /// suite under LeakSanitizer: four producer tasks left suspended in `give`).
        var isCancelled = false
    }

    private let state = Mutex(State())

    /// Called by the walk: returns once the iterator has taken `handed`, or once the walk is cancelled.
    func give(_ handed: Handed) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (giver: CheckedContinuation<Void, Never>) in
                let (taker, waits) = state.withLock { state -> (CheckedContinuation<Handed, Never>?, Bool) in
                    if let taker = state.taker {
                        state.taker = nil
                        return (taker, false)
                    }
                    state.given = handed
                    guard !state.isCancelled else { return (nil, false) }
                    state.giver = giver
                    return (nil, true)
                }
                guard !waits else { return }
                taker?.resume(returning: handed)
                giver.resume()
            }
        } onCancel: {
            // What was given stays for the iterator; the walk goes on to see its cancellation.
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.isCancelled = true
                defer { state.giver = nil }
                return state.giver
            }?.resume()
        }
    }

    /// Called by the iterator: the next thing the walk gives. The walk always gives one last (its end or its
    /// error, `.cancelled` once cancelled), so this never waits for nothing.
    func take() async -> Handed {
        await withCheckedContinuation { (taker: CheckedContinuation<Handed, Never>) in
            let (handed, giver) = state.withLock { state -> (Handed?, CheckedContinuation<Void, Never>?) in
                guard let given = state.given else {
                    state.taker = taker
                    return (nil, nil)
                }
                defer { (state.given, state.giver) = (nil, nil) }
                return (given, state.giver)
            }
            giver?.resume()
            if let handed { taker.resume(returning: handed) }
        }
    }
}
