/// What the body of a `walk` asks for after a page.
package enum WalkStep: Sendable {
    /// The next page, if there is one.
    case takeNext
    /// No more pages: the walk ends here, its fetches in flight cancelled.
    case stop
}

extension PageWalker {
    /// Hands every page to `body` in upstream order, each as soon as it and the pages before it have arrived.
    ///
    /// The fetches in flight (the window, at most `concurrency`, and the speculative ones) are child tasks of one task
    /// group whose scope is this call: when it returns or throws, every one of them has ended. The walk ends at the
    /// last page, when `body` says `.stop`, at the first error (a `PaginationError`, or whatever `body` throws, as
    /// is) or when the calling task is cancelled (`PaginationError.cancelled`). A walker is walked once: a second
    /// call hands out nothing.
    package func walk(_ body: (Page) async throws -> WalkStep) async throws {
        // Pages read in place need no task group: until the walk decides a fetch, it runs here, with no group and no
        // child (issue 13: a walk of one cached page paid for a group it never used).
        do {
            while true {
                let upcoming = try prepareNext()
                guard case .atHand(let found) = upcoming, launches.isEmpty, discarded.isEmpty else {
                    if case .end = upcoming { return }
                    try checkMayFetch()
                    return try await walkInGroup(from: .upcoming(upcoming), body)
                }
                let page = try accept(found)
                guard launches.isEmpty, discarded.isEmpty else {
                    try checkMayFetch()
                    return try await walkInGroup(from: .accepted(page), body)
                }
                guard try await body(page) == .takeNext else {
                    finish()
                    return
                }
            }
        } catch {
            finish()
            throw error
        }
    }

    /// Where `walkInGroup` takes over from the walk of pages at hand.
    private enum Resume {
        /// The next page, prepared (its fetch decided, or read in place) but not accepted yet.
        case upcoming(Upcoming)
        /// A page accepted, to hand out once the fetches the walk decided with it have started.
        case accepted(Page)
    }

    /// The rest of `walk` once it has fetches to run: they are children of one group whose scope is this call.
    private func walkInGroup(from start: Resume, _ body: (Page) async throws -> WalkStep) async throws {
        hasStartedGroup = true
        try await withThrowingTaskGroup(of: FetchOutcome.self) { group in
            // A group waits for its children when its body returns, but cancels them only when it throws.
            defer { group.cancelAll() }
            var arrivals = Arrivals()
            var resume = start
            while true {
                var page: Page
                switch resume {
                case .accepted(let accepted): page = accepted
                case .upcoming(let upcoming):
                    startChildren(in: &group, arrivals: &arrivals)
                    switch upcoming {
                    case .end: return
                    case .atHand(let found): page = found
                    case .fetching(let fetch):
                        willWait()
                        switch try await arrivals.outcome(of: fetch, in: &group) {
                        case .success(let fetched): page = fetched
                        case .failure(let error):
                            guard let last = try fetchFailed(error) else { return }
                            page = last
                        }
                    }
                    // The list's first page asked beside a window's jump is read before the jumped page (`WindowSizeProof`).
                    if let proof = sizeProof.inFlight { sizeProof.arrived(try await arrivals.outcome(of: proof, in: &group)) }
                    page = try accept(page)
                }
                startChildren(in: &group, arrivals: &arrivals)
                guard try await body(page) == .takeNext else {
                    finish()
                    return
                }
                resume = .upcoming(try prepareNext())
            }
        }
    }

    /// `walk`'s driver: starts the decided fetches as children of the group and cancels the discarded guesses.
    private func startChildren(in group: inout ThrowingTaskGroup<FetchOutcome, any Error>, arrivals: inout Arrivals) {
        for launch in launches {
            let (fetch, load) = (launch.fetch, loader(for: launch))
            guard launch.isGuess else {
                group.addTask { FetchOutcome(fetch: fetch, result: await load()) }
                continue
            }
            // A group cancels its children only all at once: a guess waits beside a signal of its own.
            let discard = DiscardSignal()
            arrivals.discardSignals[fetch] = discard
            group.addTask { FetchOutcome(fetch: fetch, result: await discard.run(load)) }
        }
        launches = []
        for fetch in discarded { arrivals.discard(fetch) }
        discarded = []
    }
}

/// How one child of a walk's group ended.
struct FetchOutcome: Sendable {
    let fetch: PageWalker.FetchID
    let result: Result<Page, PaginationError>
}

/// The children of a walk's group that ended before the walk needed their page (a group yields them in the order
/// they end), and the guesses that can still be discarded.
private struct Arrivals {
    private var ended: [PageWalker.FetchID: Result<Page, PaginationError>] = [:]
    private var abandoned: Set<PageWalker.FetchID> = []
    var discardSignals: [PageWalker.FetchID: DiscardSignal] = [:]

    /// Waits until `fetch` has ended, keeping what other children end with meanwhile.
    mutating func outcome(
        of fetch: PageWalker.FetchID, in group: inout ThrowingTaskGroup<FetchOutcome, any Error>
    ) async throws -> Result<Page, PaginationError> {
        while ended[fetch] == nil {
            // A child never throws; the group is empty only if `fetch` was never started, which `walk` never asks.
            guard let child = try await group.next() else { return .failure(.cancelled) }
            discardSignals[child.fetch] = nil
            if abandoned.remove(child.fetch) == nil { ended[child.fetch] = child.result }
        }
        return ended.removeValue(forKey: fetch) ?? .failure(.cancelled)
    }

    /// A discarded guess: cancelled if it is in flight, its page dropped if it has arrived or when it does.
    mutating func discard(_ fetch: PageWalker.FetchID) {
        if ended.removeValue(forKey: fetch) != nil { return }
        abandoned.insert(fetch)
        discardSignals.removeValue(forKey: fetch)?.fire()
    }
}
