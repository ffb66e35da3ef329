/// The pages of a paginated source, in upstream order; the first error ends it.
///
/// Each iterator is a walk of its own, started at its first `next()`. Iterators have value semantics: a copy
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
            do throws(PaginationError) {
                let walker = try await uniqueWalker()
                guard let page = try await walker.next() else {
                    finish()
                    return nil
                }
                pagesTaken += 1
                return page
            } catch {
                finish()
                throw error
            }
        }

        /// This iterator's own walker, at the page after the last one it took: a fresh walk if it has none yet, or
        /// if a copy of this iterator shares it.
        private mutating func uniqueWalker() async throws(PaginationError) -> PageWalker {
            // Checked before binding `walk`, which would be a second reference of its own.
            if isKnownUniquelyReferenced(&walk), let walker = walk?.walker { return walker }
            let walker = walks.makeWalker(for: source)
            for _ in 0..<pagesTaken where try await walker.next() == nil { break }
            walk = WalkReference(walker: walker)
            return walker
        }

        private mutating func finish() {
            isFinished = true
            walk = nil
        }
    }
}

/// Holds an iterator's walker, so that the iterator can tell whether a copy of it shares the walker.
private final class WalkReference {
    let walker: PageWalker

    init(walker: PageWalker) {
        self.walker = walker
    }
}
