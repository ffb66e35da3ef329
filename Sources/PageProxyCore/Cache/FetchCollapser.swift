/// Runs one piece of work per key at a time: callers that ask for a key already in flight wait for its result
/// instead of starting their own (request collapsing: 20 clients asking for one page make one upstream request).
///
/// An actor holding, per key, the task doing the work and the callers waiting for it. The work runs in a task of
/// its own, not in any caller's, so one caller going away never fails the others: a cancelled caller stops waiting
/// at once and gets nil, and the work itself is cancelled when the last caller waiting for it has gone. Each caller
/// keeps its own deadline and page timeout by cancelling its own wait (`CachingPageSource`); the work sees the latest
/// deadline among its callers and tells them when its try is sent (`FlightDeadline`, `FlightWaiter`), so that one
/// caller's deadline or page time passing never ends it for the others.
///
/// A flight that a caller left before it ended (its page time or deadline passed, or its client went) is joined by
/// no one after: it goes on for those still waiting, and the next caller — a retry of the one that left among them —
/// starts a fresh try (review: a try stuck on a dead connection, joined by every retry and every new request for a
/// popular page, lived for a day and sent no new request). The older flight is then told it is superseded
/// (`FlightDeadline.isSuperseded`): its answer, asked earlier, must not replace the newer one's in the store.
package actor FetchCollapser<Key: Hashable & Sendable, Value: Sendable> {
    private struct Flight {
        let id: Int
        let task: Task<Void, Never>
        let deadline: FlightDeadline
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    }

    /// The flights a caller may join, one per key.
    private var flights: [Key: Flight] = [:]
    /// Flights still running for their waiters that no caller may join any more (one of theirs left), by id.
    private var retired: [Int: (key: Key, flight: Flight)] = [:]
    /// Numbers callers and flights, so that a late `finish` or `leave` cannot touch a newer flight of the same key.
    private var counter = 0

    package init() {}

    /// How many keys have work in flight.
    package var inFlightCount: Int { flights.count + retired.count }

    /// How many callers wait for work, of every key (in every flight, retired ones too).
    package var waiterCount: Int {
        retired.values.reduce(flights.values.reduce(0) { $0 + $1.waiters.count }) { $0 + $1.flight.waiters.count }
    }

    /// How many callers wait for `key`'s work (in every flight of it, retired ones too).
    package func waiterCount(for key: Key) -> Int {
        retired.values.reduce(flights[key]?.waiters.count ?? 0) { $0 + ($1.key == key ? $1.flight.waiters.count : 0) }
    }

    /// The result of `work` for `key`, run now or joined if already running; nil if this caller was cancelled.
    /// - Returns: the value, and whether this caller joined work another caller started.
    package func value(for key: Key, work: @escaping @Sendable () async -> Value) async -> (value: Value?, joined: Bool) {
        await value(for: key, until: nil) { _ in await work() }
    }

    /// The result of `work` for `key`, run now or joined if already running; nil if this caller was cancelled.
    /// - Parameters:
    ///   - deadline: when this caller will stop waiting (by cancelling its wait); nil for never. The work is handed
    ///     the latest deadline among its callers, which each caller that joins may push later.
    ///   - waiter: this caller's page time, told when the work's try is sent (`FlightDeadline.trySent`).
    /// - Returns: the value, and whether this caller joined work another caller started.
    package func value(
        for key: Key, until deadline: ContinuousClock.Instant?, as waiter: FlightWaiter? = nil,
        work: @escaping @Sendable (FlightDeadline) async -> Value
    ) async -> (value: Value?, joined: Bool) {
        counter += 1
        let caller = counter
        let joined = flights[key] != nil
        let value = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wait(for: key, as: caller, page: waiter, until: deadline, continuation: continuation, work: work)
            }
        } onCancel: {
            // Runs outside the actor; the actor is busy with `wait` until the continuation is stored, so `leave`
            // always finds it (or finds it already answered).
            Task { await self.leave(key, waiter: caller) }
        }
        return (value, joined)
    }

    private func wait(
        for key: Key, as waiter: Int, page: FlightWaiter?, until deadline: ContinuousClock.Instant?,
        continuation: CheckedContinuation<Value?, Never>, work: @escaping @Sendable (FlightDeadline) async -> Value
    ) {
        // A caller cancelled before it asked starts nothing.
        guard !Task.isCancelled else { return continuation.resume(returning: nil) }
        if let flight = flights[key] {
            flight.deadline.extend(to: deadline)
            if let page { flight.deadline.add(page) }
            flights[key]?.waiters[waiter] = continuation
            return
        }
        // A flight one of its callers left still runs for the others: what it brings is older than what this one will.
        for entry in retired.values where entry.key == key { entry.flight.deadline.supersede() }
        counter += 1
        let id = counter
        let flightDeadline = FlightDeadline(deadline)
        if let page { flightDeadline.add(page) }
        let task = Task {
            let value = await work(flightDeadline)
            finish(key, flight: id, with: value)
        }
        flights[key] = Flight(id: id, task: task, deadline: flightDeadline, waiters: [waiter: continuation])
    }

    private func finish(_ key: Key, flight id: Int, with value: Value) {
        let flight: Flight
        if let current = flights[key], current.id == id {
            flights[key] = nil
            flight = current
        } else if let entry = retired.removeValue(forKey: id) {
            flight = entry.flight
        } else {
            return
        }
        flight.waiters.values.forEach { $0.resume(returning: value) }
    }

    private func leave(_ key: Key, waiter: Int) {
        var flight: Flight
        if let current = flights[key], current.waiters[waiter] != nil {
            flights[key] = nil
            flight = current
        } else if let id = retired.first(where: { $0.value.key == key && $0.value.flight.waiters[waiter] != nil })?.key,
            let entry = retired.removeValue(forKey: id)
        {
            flight = entry.flight
        } else {
            return
        }
        flight.waiters.removeValue(forKey: waiter)?.resume(returning: nil)
        // Nobody waits any more: stop the work. Others still wait: it goes on for them, joined by no one else.
        if flight.waiters.isEmpty {
            flight.task.cancel()
        } else {
            retired[flight.id] = (key, flight)
        }
    }
}
