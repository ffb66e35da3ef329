import Synchronization

/// Whether an origin has been caught sending responses no request asked for (`ConnectionPool.noteUnsolicited`), at any
/// time since the watch was made.
///
/// A response read over a reused kept-alive connection carries its origin's watch (`UpstreamResponse.reusedConnection`):
/// it may be a stray response the upstream wrote unasked before the request went out, which no check tells from the
/// answer until bytes are seen after it, a page or more later (stray19, retest18's attack17 L2 remainder). Once the
/// origin is caught, every page read so is suspect. The first response on a new connection never is (it answers the
/// request that opened it), and a caught origin's connections are not reused again, so a walk after the catch reads
/// no suspect page.
package final class OriginStrayWatch: Sendable {
    private let caught: Atomic<Bool>

    init(caught: Bool) {
        self.caught = Atomic(caught)
    }

    /// Whether the origin was caught sending a stray response.
    package var isCaught: Bool { caught.load(ordering: .acquiring) }

    func noteCaught() {
        caught.store(true, ordering: .releasing)
    }
}
