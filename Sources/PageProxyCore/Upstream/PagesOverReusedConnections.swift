import Synchronization

/// The pages one walk fetched over reused connections (`UpstreamResponse.reusedConnection`), so that it learns when one
/// of their origins is caught sending stray responses while it walks (stray19): such a page may be a stray response
/// read as the page, and is neither answered nor kept.
///
/// Why the origin and not the connection: the habit is in the upstream's code; a catch on any of its connections makes
/// every reused one suspect, also those the pool closed unlooked-at when it caught the origin
/// (`ConnectionPool.noteUnsolicited`). A sane upstream is never caught: this costs it a note per page, no request.
package final class PagesOverReusedConnections: Sendable {
    private struct State {
        /// The page URLs read over reused connections, each with its origin's watch and the version the fetch stored
        /// of it (nil: none, such as with the cache off).
        var pages: [(url: PageURL, watch: OriginStrayWatch, stored: PageStamp?)] = []
        /// The distinct watches among them (one, nearly always).
        var watches: [OriginStrayWatch] = []
        /// A page of the walk was found suspect (`note`).
        var foundSuspect = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Notes the page fetched at `url`, and `stored`, the version of it the fetch stored; true when a page of the walk
    /// read over a reused connection (this one or one before) is suspect now: its origin has been caught since.
    package func note(_ response: UpstreamResponse, at url: PageURL, stored: PageStamp? = nil) -> Bool {
        state.withLock { state in
            if let watch = response.reusedConnection {
                state.pages.append((url, watch, stored))
                if !state.watches.contains(where: { $0 === watch }) { state.watches.append(watch) }
            }
            if state.watches.contains(where: \.isCaught) { state.foundSuspect = true }
            return state.foundSuspect
        }
    }

    /// Whether `note` found a suspect page: the walk failed with `UpstreamError.strayResponse`.
    package var foundSuspect: Bool { state.withLock { $0.foundSuspect } }

    /// The URLs of the suspect pages: read over reused connections of an origin caught since.
    package var suspectURLs: [PageURL] {
        state.withLock { $0.pages.filter { $0.watch.isCaught }.map(\.url) }
    }

    /// The versions the fetches of the suspect pages stored: what the walk removes from the cache, and only that
    /// (`CachingPageSource.forget`; a newer version stored since by another fetch stays, fix37).
    package var suspectVersions: [PageStamp] {
        state.withLock { $0.pages.filter { $0.watch.isCaught }.compactMap(\.stored) }
    }
}
