import Foundation

/// One cached upstream page: the 200 response as PageProxy needs it again, and when it stops being fresh.
package struct CacheEntry: Sendable, Equatable {
    package var status: HTTPStatus
    /// The upstream's end-to-end headers (see `storedHeaders(of:)`): validators, `Cache-Control`, pagination links.
    package var headers: HTTPHeaders {
        didSet { isPrivate = CacheFreshness.isPrivate(headers) }
    }
    /// The upstream said `Cache-Control: private`: answers built from the page say so too. Read from `headers` when
    /// the entry is made (stored, or read back from its file), not for every answer.
    package private(set) var isPrivate: Bool
    package var body: [UInt8] {
        didSet {
            file = nil
            bodyInFile = nil
        }
    }
    /// The body verified through its held file and not kept (`body` is then empty; issue 13, fourteenth pass): only a
    /// lookup that asks for it (`DiskStore.lookup(_:keepsFirstRead:leavesBodyFor:)`) gets such an entry, and it is never
    /// kept in memory, read ahead for another walk, nor written. `withBodyRead` gives the bytes.
    package var bodyInFile: BodyInFile?
    /// The body's length, in memory or not.
    package var bodyCount: Int { bodyInFile?.length ?? body.count }
    /// The open entry file `body` was read and verified from, when the store kept it for sending from (`HeldEntryFile`;
    /// issue 13, eighth pass); any change of `body` forgets it. Not part of the entry's identity (`==`), nor stored.
    package var file: HeldEntryFile?
    package var storedAt: Date
    /// The page's age when it was stored or last revalidated (RFC 9111 §4.2.3: the larger of its `Age` and of the time
    /// its `Date` was behind this clock): a client's `max-age` judges the page by its age, `storedAt` less this, not by
    /// when PageProxy received it (review15 R4: a page an hour old behind a CDN was fresh enough for `max-age=60`).
    package var initialAge: Duration = .zero
    /// After this instant the entry must be revalidated before it is served.
    package var freshUntil: Date
    /// The upstream said `must-revalidate` (or `no-cache`): never served stale, not even when it fails.
    package var mustRevalidate: Bool
    /// The upstream set the lifetime (`max-age`, `no-cache`); otherwise it is the storing route's TTL, and each route
    /// judges the entry by its own (`freshUntil(routeTTL:)`).
    package var lifetimeFromUpstream: Bool
    /// The XXH64 of `body`: the torn-write check of the body, and the page's identity in an aggregate's `ETag`.
    package private(set) var bodyChecksum: UInt64
    /// Where the items lie in `body`, kept so that a hit is not scanned again; nil when the page was not scanned.
    package var scan: StoredScan?

    /// - Parameter bodyChecksum: `XXHash64.hash(body)` when the caller has it (a verified read); computed otherwise.
    package init(
        status: HTTPStatus, headers: HTTPHeaders, body: [UInt8], storedAt: Date, freshUntil: Date, mustRevalidate: Bool = false,
        lifetimeFromUpstream: Bool = false, initialAge: Duration = .zero,
        scan: StoredScan? = nil, bodyChecksum: UInt64? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        self.mustRevalidate = mustRevalidate
        self.lifetimeFromUpstream = lifetimeFromUpstream
        self.initialAge = initialAge
        self.scan = scan
        self.bodyChecksum = bodyChecksum ?? XXHash64.hash(body)
        isPrivate = CacheFreshness.isPrivate(headers)
    }

    /// The same entry, whatever file it was read from.
    package static func == (left: CacheEntry, right: CacheEntry) -> Bool {
        left.status == right.status && left.headers == right.headers && left.body == right.body && left.storedAt == right.storedAt
            && left.freshUntil == right.freshUntil && left.mustRevalidate == right.mustRevalidate
            && left.lifetimeFromUpstream == right.lifetimeFromUpstream && left.bodyChecksum == right.bodyChecksum && left.scan == right.scan
            && left.initialAge == right.initialAge
    }

    /// The page's age at `now` (RFC 9111 §4.2.3: its age when stored plus the time it has been resident since).
    package func age(at now: Date) -> TimeInterval {
        now.timeIntervalSince(storedAt) + initialAge.timeInterval
    }

    /// The entry with its body in memory: read back from its held file and checked when it was left there
    /// (`bodyInFile`); nil when that fails (the store is told, and removes the entry).
    package func withBodyRead() -> CacheEntry? {
        guard let bodyInFile else { return self }
        guard let bytes = bodyInFile.read() else { return nil }
        var entry = self
        entry.body = bytes
        entry.file = bodyInFile.file
        return entry
    }

    /// The entry without its open file (a copy kept in memory must not hold a descriptor).
    package var withoutFile: CacheEntry {
        var entry = self
        entry.file = nil
        return entry
    }

    package func isFresh(at now: Date) -> Bool { now < freshUntil }

    /// When the entry stops being fresh for a route whose TTL is `routeTTL`: as stored when the upstream set the
    /// lifetime; otherwise no later than the route's own TTL allows (another route with a longer TTL stored the page,
    /// or this one before its TTL was lowered).
    package func freshUntil(routeTTL: Duration) -> Date {
        Self.freshUntil(freshUntil, storedAt: storedAt, lifetimeFromUpstream: lifetimeFromUpstream, routeTTL: routeTTL)
    }

    /// The rule of `freshUntil(routeTTL:)`, for a stored version known only by these (`StoredVersion.judged`).
    static func freshUntil(_ freshUntil: Date, storedAt: Date, lifetimeFromUpstream: Bool, routeTTL: Duration) -> Date {
        lifetimeFromUpstream ? freshUntil : min(freshUntil, storedAt.addingTimeInterval(routeTTL.timeInterval))
    }

    /// The page as the walker sees it, with its stored identity and scan.
    package var response: UpstreamResponse {
        var response = UpstreamResponse(status: status, headers: headers, body: body)
        response.storedChecksum = bodyChecksum
        response.storedScan = scan
        response.storedFile = file
        response.bodyInFile = bodyInFile
        return response
    }

    /// Headers never stored: hop-by-hop ones (RFC 9110 §7.6.1), framing, per-message ones, and cookies (which
    /// PageProxy never passes on, so there is no reason to keep them on disk).
    static let unstoredHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "content-length", "date", "age", "set-cookie", "set-cookie2",
        "pageproxy-initial-age",  // CacheEntryFormat.initialAgeField: the entry's own, never an upstream's
    ]

    /// The response headers an entry keeps.
    package static func storedHeaders(of headers: HTTPHeaders) -> HTTPHeaders {
        var kept = HTTPHeaders()
        for field in headers where !unstoredHeaders.contains(field.name.lowercased()) {
            kept.add(field.name, field.value)
        }
        return kept
    }

    /// RFC 9111 §4.3.4 — whether a 304 with `headers` names this entry, so that it may update it: with a strong
    /// `ETag`, the same strong one must be stored; with a weak one, the same opaque tag, weak or not; with no `ETag`
    /// but a `Last-Modified` (a weak validator), the same date must be stored, if one is (review15 R5: a 304 of
    /// another version refreshed the old body); with neither, yes (a server that omits them, against RFC 9110 §15.4.5,
    /// still means the version it was asked about).
    package func isNamed(byNotModified headers: HTTPHeaders) -> Bool {
        guard let tag = headers["ETag"]?.trimmingCharacters(in: .whitespaces) else {
            guard let modified = headers["Last-Modified"]?.trimmingCharacters(in: .whitespaces) else { return true }
            // A date names only a version stored with one: not one known by its ETag alone (review16 R6).
            guard let stored = self.headers["Last-Modified"]?.trimmingCharacters(in: .whitespaces) else {
                return self.headers["ETag"] == nil
            }
            return modified == stored
        }
        guard let stored = self.headers["ETag"]?.trimmingCharacters(in: .whitespaces) else { return false }
        if tag.hasPrefix("W/") { return HTTPFieldSyntax.opaqueTag(tag[...]) == HTTPFieldSyntax.opaqueTag(stored[...]) }
        return tag == stored
    }

    /// RFC 9111 §4.3.4 — a 304 updates the stored headers with those it carries (new validators, new freshness).
    /// The URL that answered (`RedirectingTransport.answeredURLField`) is the 304's: none when it came without a
    /// redirect, so that the page's links resolve against its own URL again (review20 L1: an old redirect's target
    /// stayed for the entry's whole life).
    package mutating func merge304Headers(_ update: HTTPHeaders) {
        headers.remove(RedirectingTransport.answeredURLField)
        let fresh = CacheEntry.storedHeaders(of: update)
        var names: [String] = []
        for field in fresh where !names.contains(where: { HTTPHeaders.namesEqual($0, field.name) }) {
            names.append(field.name)
        }
        for name in names {
            headers.remove(name)
            for value in fresh.values(name) { headers.add(name, value) }
        }
    }
}
