import Synchronization

/// What `lookahead` has learned about upstreams' links, shared by every walk of a process.
///
/// Guesses are numbered on the first page's URL until the upstream's own `next` link is seen. Some upstreams link
/// elsewhere (GitHub answers `/repos/o/r/issues` with links to `/repositories/<id>/issues`), so those guesses cannot
/// be confirmed. After the first page, a walk records the path its links use, and later walks from the same first
/// path guess there at once; a shape whose guesses still failed is recorded too, and never guessed again.
package final class LookaheadMemory: Sendable {
    /// What is known about the links of the walks that start at one origin and path.
    package enum Lesson: Sendable, Equatable {
        /// The links use this path (with the first URL's query and the page parameter): guess there.
        case rebase(path: String)
        /// Guesses could not be confirmed: do not guess.
        case never
    }

    private let lessons = Mutex<[String: Lesson]>([:])
    /// The offset lists seen filtered, kept here as this is what every walk and plan of a process shares.
    package let filteringLists = FilteringLists()
    /// A bound on what is kept: first paths are few in practice, but a client may vary a path without end.
    private let capacity: Int

    package init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    /// What was learned for walks that start at `first`, if anything.
    package func lesson(for first: PageURL) -> Lesson? {
        lessons.withLock { $0[Self.key(first)] }
    }

    /// Records what a walk from `first` learned.
    package func learn(_ lesson: Lesson, for first: PageURL) {
        lessons.withLock { lessons in
            if lessons.count >= capacity, lessons[Self.key(first)] == nil { lessons.removeAll(keepingCapacity: true) }
            lessons[Self.key(first)] = lesson
        }
    }

    private static func key(_ url: PageURL) -> String {
        url.origin.description + url.path
    }
}
