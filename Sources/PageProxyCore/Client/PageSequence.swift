/// The pages of a paginated source, in upstream order; the first error ends it.
///
/// Each iterator is a walk of its own, started at its first `next()` in a task of its own and stopped when the
/// iterator is dropped. Iterators have value semantics: a copy
/// continues from where the original was when it was copied, independently of it. The copy that advances first
/// while the two still share a walk starts a fresh walk and passes over the pages already taken (with a cache,
/// they are hits), so two copies never take pages from one shared walk.
public struct PageSequence: AsyncSequence, Sendable {
    /// A page.
    public typealias Element = Page
    /// Why the walk ended early.
    public typealias Failure = PaginationError

    let source: PaginatedSource
    let walks: PageWalkerFactory

    /// A new walk over the source.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: source, walks: walks)
    }

    /// One walk over the pages; see ``PageSequence`` for what copying it does.
    public struct Iterator: AsyncIteratorProtocol {
        private let source: PaginatedSource
        private let walks: PageWalkerFactory
        private var walk: WalkReference?
        private var pagesTaken = 0
        private var isFinished = false

        init(source: PaginatedSource, walks: PageWalkerFactory) {
            self.source = source
            self.walks = walks
        }

        /// The next page, `nil` after the last; an error ends the walk, and every call after it returns `nil`.
        public mutating func next() async throws(PaginationError) -> Page? {
            guard !isFinished else { return nil }
            let walk = uniqueWalk()
            // A cancelled iterator stops its walk (and the walk then answers `.cancelled`).
            let handed = await withTaskCancellationHandler {
                await walk.handOff.take()
            } onCancel: {
                walk.producer.cancel()
            }
            switch handed {
            case .success(let page?):
                pagesTaken += 1
                return page
            case .success(nil):
                finish()
                return nil
            case .failure(let error):
                finish()
                throw error
            }
        }

        /// This iterator's own walk, at the page after the last one it took: a fresh walk if it has none yet, or if
        /// a copy of this iterator shares it.
        private mutating func uniqueWalk() -> WalkReference {
            // Checked before binding `walk`, which would be a second reference of its own.
            if isKnownUniquelyReferenced(&walk), let walk { return walk }
            let started = WalkReference(walks: walks, source: source, skipping: pagesTaken)
            walk = started
            return started
        }

        private mutating func finish() {
            isFinished = true
            walk = nil
        }
    }
}

/// One iterator's walk: a producer task walking the pages into a hand-off (a pull over `PageWalker.walk`, whose
/// fetches are children of the producer's task group), cancelled when the iterator lets go of it.
private final class WalkReference: Sendable {
    let handOff = PageHandOff()
    let producer: Task<Void, Never>

    /// A walk that passes over the first `skipping` pages (a copy's fresh walk, past what it has taken).
    init(walks: PageWalkerFactory, source: PaginatedSource, skipping: Int) {
        let handOff = self.handOff
        producer = Task {
            let walker = walks.makeWalker(for: source)
            var toSkip = skipping
            do {
                try await walker.walk { page in
                    if toSkip > 0 {
                        toSkip -= 1
                    } else {
                        await handOff.give(.success(page))
                    }
                    return .takeNext
                }
                await handOff.give(.success(nil))
            } catch {
                // The body throws nothing: the walk's own error.
                await handOff.give(.failure(error as? PaginationError ?? .cancelled))
            }
        }
    }

    deinit {
        producer.cancel()
    }
}
