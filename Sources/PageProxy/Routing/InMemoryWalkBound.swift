import Synchronization

/// How much a walk answered on the socket loop's thread may read: a few pages, a few tens of KiB (every other socket
/// waits while it runs, issue 13); past either, the walk declines and the pool answers the request.
final class InMemoryWalkBound: Sendable {
    /// The most pages read.
    static let maxPages = 8
    private let maxBytes: Int
    private let used = Mutex((pages: 0, bytes: 0))

    /// - Parameter maxBytes: the most bytes of page bodies read.
    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Whether one more page may be read.
    func admitsPage() -> Bool {
        used.withLock { $0.pages < Self.maxPages }
    }

    /// Counts a page of `bytes`; false (and nothing counted) when it would take the walk past its bytes.
    func admits(bytes: Int) -> Bool {
        used.withLock { used in
            guard used.pages < Self.maxPages, used.bytes + bytes <= maxBytes else { return false }
            used.pages += 1
            used.bytes += bytes
            return true
        }
    }
}
