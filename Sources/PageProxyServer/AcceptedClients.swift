import PageProxyCore
import Synchronization

/// The clients a `Listener` accepted, in order, for one consumer (the server's loop).
///
/// Each waits here, held, until the consumer takes it. Once the consumer takes no more (its task cancelled by a
/// forced stop, its loop left), every client still waiting is closed, and any accepted later at once: an
/// `AsyncStream` alone drops what it buffered with the descriptors open (review26 L4).
package struct AcceptedClients: AsyncSequence, Sendable {
    package typealias Element = Socket
    package typealias Failure = Never

    let stream: AsyncStream<HeldClients.Ticket>
    let held: HeldClients

    package struct AsyncIterator: AsyncIteratorProtocol {
        package typealias Element = Socket
        package typealias Failure = Never

        var base: AsyncStream<HeldClients.Ticket>.AsyncIterator
        let held: HeldClients

        package mutating func next() async -> Socket? {
            while true {
                // A consumer cancelled between two clients takes no more.
                guard !Task.isCancelled, let ticket = await base.next() else {
                    held.abandon()
                    return nil
                }
                if let client = held.take(ticket) { return client }
            }
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), held: held)
    }
}

/// The accepted clients not yet taken by the consumer, each under the ticket the stream carries.
final class HeldClients: Sendable {
    struct Ticket: Sendable {
        fileprivate let number: UInt64
    }

    private struct State {
        var waiting: [UInt64: Socket] = [:]
        var issued: UInt64 = 0
        var abandoned = false
    }

    private let state = Mutex(State())

    /// How many clients wait to be taken.
    var count: Int { state.withLock { $0.waiting.count } }

    /// Holds `client` under a new ticket; nil once the consumer takes no more (the caller closes it).
    func hold(_ client: Socket) -> Ticket? {
        state.withLock { state in
            guard !state.abandoned else { return nil }
            state.issued += 1
            state.waiting[state.issued] = client
            return Ticket(number: state.issued)
        }
    }

    /// The client under `ticket`, now the taker's; nil if it was closed meanwhile.
    func take(_ ticket: Ticket) -> Socket? {
        state.withLock { $0.waiting.removeValue(forKey: ticket.number) }
    }

    /// Closes every client held, and makes `hold` refuse later ones: the consumer takes no more.
    func abandon() {
        let left = state.withLock { state -> [Socket] in
            state.abandoned = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        left.forEach { $0.close() }
    }
}
