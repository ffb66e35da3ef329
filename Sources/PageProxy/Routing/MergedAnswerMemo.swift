import Foundation
import PageProxyCore
import Synchronization

/// Merged answers whose every page is fresh in the page cache, kept in memory until the first of those pages goes
/// stale: a warm repeat is one lookup and one write, with no walk, no JSON scan and no hash.
///
/// It never answers what a walk through the page cache would not (DESIGN.md): the same fresh pages give the same
/// bytes, so an answer is served only while every page it was built from is still the version it was built from
/// (its `PageStamp`s are current in the store: no write, 304 refresh, removal or eviction since) and fresh; the
/// answer ends when the first of them would be revalidated. An answer with a page that was not stored (the cache
/// off, `no-store`, a stale page) is not kept; a client that asks for fresh pages bypasses it. Bounded in bytes;
/// the least recently used answer goes first.
///
/// The bound counts every byte of a memoized answer for as long as anything holds it (`MergedAnswerCharge`): kept
/// here, being read back for the memo, or being sent, also after its eviction. An answer is charged before its bytes
/// are made (`reserve`); one that would take the charge past the bound is not memoized, and is sent as any other
/// answer (held pages or its spool, bounded by the lending budget and the disk).
final class MergedAnswerMemo: Sendable {
    /// A memoized answer. A request that sends it holds it until the send has ended (its charge lasts as long).
    final class Answer: Sendable {
        /// The body in memory; empty for an answer sent from its entry's file (`file`).
        let body: [UInt8]
        /// The answer's entry file in the cache directory, held open, when it was found there after a restart
        /// (`PersistedMergedAnswers`): its body is sent from it, from 0 to `length`, and is not in memory.
        let file: HeldEntryFile?
        /// The body's length.
        let length: Int
        let pages: Int
        let items: Int
        let truncated: Bool
        let etag: String
        let freshUntil: Date
        /// When it was made, on the memo's clock: one made after `now` (the clock stepped back since) is not used, and
        /// what caches in front are told never exceeds the lifetime it had then (attack17 M2: `max-age` ≈ the skew).
        let madeAt: Date
        /// The stored versions of the pages the answer was built from.
        let stamps: [PageStamp]
        /// Headers the walk added (an auto route's `PageProxy-Scheme` …), sent again with the answer.
        let extraHeaders: HTTPHeaders
        /// A page's upstream said `Cache-Control: private`: a replay says `private` too, as the walk's answer did.
        let upstreamPrivate: Bool
        /// Every page a hit, as a walk through the cache would count them.
        let cacheSummary: String
        /// The answer's own header lines, serialized once (`name: value CRLF` each, `Content-Length` included): a
        /// repeat adds only the status line and the per-request fields (issue 13: the memo closer to nginx).
        let preparedFields: [UInt8]
        /// What the memo's bound counts for it, given back when the answer goes (`MergedAnswerMemo.reserve`).
        let charge: MergedAnswerCharge
        /// The key of its answer entry in the cache directory, when it has one (`PersistedMergedAnswers`): its hits are
        /// uses of that entry too.
        let entryKey: CacheKey?
        /// Where the body's items are split (`AnswerEntry.itemSeparators`), when known: an answer read from its entry
        /// answers NDJSON of the same items too (`NDJSONAnswerRenderer.render(memoized:)`); nil for one made by a walk.
        let itemSeparators: [Int]?

        init(
            body: [UInt8], pages: Int, items: Int, truncated: Bool, etag: String, freshUntil: Date, madeAt: Date, stamps: [PageStamp],
            extraHeaders: HTTPHeaders = HTTPHeaders(), upstreamPrivate: Bool = false, charge: MergedAnswerCharge, file: HeldEntryFile? = nil,
            length: Int? = nil, entryKey: CacheKey? = nil, itemSeparators: [Int]? = nil
        ) {
            self.body = body
            self.itemSeparators = itemSeparators
            self.entryKey = entryKey
            self.file = file
            self.length = length ?? body.count
            self.charge = charge
            self.pages = pages
            self.items = items
            self.truncated = truncated
            self.etag = etag
            self.freshUntil = freshUntil
            self.madeAt = madeAt
            self.stamps = stamps
            self.extraHeaders = extraHeaders
            self.upstreamPrivate = upstreamPrivate
            cacheSummary = CacheTally.summary([.hit: pages])
            var fields = MergedAnswerHeaders.make(
                extra: extraHeaders, pages: pages, items: items, truncated: truncated, cache: cacheSummary, stale: false, etag: etag)
            fields.set("Content-Length", String(self.length))
            preparedFields = HTTPResponseHead.fieldLines(fields)
        }

        /// Until when a cache in front may keep it, asked at `now`: its pages' freshness, never for longer than it had
        /// when it was made (`now` a moment before `madeAt`, within `WallClockStep.tolerance`).
        func freshUntil(forCachesAt now: Date) -> Date {
            min(freshUntil, now.addingTimeInterval(freshUntil.timeIntervalSince(madeAt)))
        }

        /// How many bytes of it a thread that must not wait for the disk would send: all of them from memory; from a file,
        /// none may be (`Int.max`).
        var bytesOnLoop: Int { file == nil ? body.count : Int.max }

        /// The answer's header fields, for a reply that is not the prepared 200 (a 304, or one sent from its file).
        var headers: HTTPHeaders {
            MergedAnswerHeaders.make(
                extra: extraHeaders, pages: pages, items: items, truncated: truncated, cache: cacheSummary, stale: false, etag: etag)
        }
    }

    private struct Slot {
        var answer: Answer
        /// Where the answer stands in `State.recency`.
        var use: RecencyList<String>.Handle
        /// The store's change count when the stamps were last found current: while it is unchanged, they still are.
        var checkedAt: UInt64
        /// When a hit last told the store of a use of the answer's pages and entry (`useInterval`).
        var usedAt = Date.distantPast
    }

    /// How often, at most, the hits of one answer are told to the store as uses of the pages it was built from and of
    /// its answer entry (`DiskStore.noteUses`): the eviction order needs no finer grain, and a hit on the socket loop
    /// takes the store's lock at most once a second per answer for it. Without the pages' uses, the most asked
    /// answers, served from the memo, had their pages evicted first (retest17 W2), and a walk fetched them again.
    static let useInterval: TimeInterval = 1

    private struct State {
        var slots: [String: Slot] = [:]
        /// The charges of the answers kept (`ledger` counts these and the ones only requests hold).
        var bytes = 0
        /// The keys, least recently used first: the answer to drop is found in O(1), not by a scan under the lock that
        /// the epoll loop takes for every memo hit (issue 13, sixth pass).
        var recency = RecencyList<String>()

        /// Removes the answer for `key` and returns it, to be freed after the lock is let go.
        mutating func removeSlot(_ key: String) -> Answer? {
            guard let slot = slots.removeValue(forKey: key) else { return nil }
            recency.remove(slot.use)
            bytes -= slot.answer.charge.bytes
            return slot.answer
        }

        /// Whether a request holds the answer kept for `key` (sends it): dropping it would free nothing.
        mutating func isHeldByARequest(_ key: String) -> Bool {
            guard let index = slots.index(forKey: key) else { return false }
            return !isKnownUniquelyReferenced(&slots.values[index].answer)
        }
    }

    /// The most bytes of answers kept; 0 keeps none.
    let maxBytes: Int
    /// What each answer counts against `maxBytes` besides its body: what every answer holds however small its body
    /// (its key, prepared header lines, stamps, tag, the map's slot). Counting bodies alone, answers of `[{}]` (a
    /// `_fields` that names no member) took ~1.1 KB each while the bound saw 4 bytes: a client asking many distinct
    /// ones grew the process without end (found by an attack, 100,000 requests: +100 MB).
    let perAnswerBytes: Int
    /// About what an answer of one page holds besides its body (measured: ~1.1 KB for a 4-byte body).
    static let measuredAnswerBytes = 1024
    /// The page cache the answers were built from; nil keeps none.
    private let store: DiskStore?
    private let state = Mutex(State())
    /// Every answer's charge, kept or held by requests only: never past `maxBytes`.
    private let ledger = MergedAnswerCharge.Ledger()
    /// The page cache's clock: an answer is fresh while its pages are, on the same clock.
    let clock: PageProxyClock

    init(maxBytes: Int, store: DiskStore?, clock: PageProxyClock = .system, perAnswerBytes: Int = measuredAnswerBytes) {
        self.store = store
        self.maxBytes = store == nil ? 0 : max(0, maxBytes)
        self.perAnswerBytes = perAnswerBytes
        self.clock = clock
    }

    /// The key of an answer: everything that decides its bytes. The headers sent upstream (credentials too) are
    /// part of it, as they are of every page's key, so one client's answer never reaches another; they are kept only
    /// as a `KeyedDigest` with the URL (whose query may hold a key too), never as written (attack7: the memo held
    /// credentials as long as their answers).
    static func key(route: String, base: PageURL, pageLimit: Int?, itemLimit: Int?, upstreamHeaders: HTTPHeaders) -> String {
        key(route: route, input: keyInput(base: base, pageLimit: pageLimit, itemLimit: itemLimit, upstreamHeaders: upstreamHeaders))
    }

    /// The key of an answer whose inputs are `input` (`keyInput`).
    static func key(route: String, input: String) -> String { route + "\u{0}" + KeyedDigest(input.utf8).hex }

    /// What decides an answer's bytes besides its route, as written: digested before it is kept anywhere (`key`, and
    /// the key of its entry in the cache directory, `AnswerEntryKey`).
    static func keyInput(base: PageURL, pageLimit: Int?, itemLimit: Int?, upstreamHeaders: HTTPHeaders) -> String {
        var input = "\(base)\u{0}\(pageLimit ?? -1)\u{0}\(itemLimit ?? -1)"
        for (name, value) in upstreamHeaders { input += "\u{0}\(name.lowercased()):\(value)" }
        return input
    }

    /// The answer kept for `key`, if it is still fresh now (on the memo's clock) and every page it was built from is
    /// unchanged.
    func answer(for key: String) -> Answer? { answer(for: key, at: clock.wallNow()) }

    /// The answer kept for `key`, if it is still fresh at `now` and every page it was built from is unchanged.
    func answer(for key: String, at now: Date) -> Answer? {
        guard let store, let (answer, checkedAt, usesDue) = lookUp(key, at: now) else { return nil }
        if usesDue { store.noteUses(answer.stamps.map(\.key) + (answer.entryKey.map { [$0] } ?? [])) }
        // Nothing written or removed since the stamps were last checked: they are still current, at no cost.
        let changes = store.changeCount
        if changes == checkedAt { return answer }
        guard let current = store.changeCount(ifCurrent: answer.stamps) else {
            drop(key, ifBuiltAt: checkedAt)
            return nil
        }
        state.withLock { state in
            if state.slots[key]?.checkedAt == checkedAt { state.slots[key]?.checkedAt = current }
        }
        return answer
    }

    /// When an answer whose walk began at `began` was made, on the memo's clock: the later of the walk's start and now.
    /// A wall clock stepped back during the walk (NTP correcting a fast clock) left the pages stored before the step
    /// "ahead", which a lookup revalidates; made at the end alone, the answer built on them looked made now, and was sent
    /// as fresh (loose18's leftover). Every answer kept from a walk, merged or NDJSON (review27 R1), is stamped so.
    func madeAt(walkBegan began: Date) -> Date { max(began, clock.wallNow()) }

    /// Whether an answer of `byteCount` bytes may be kept (at most half the bound, with what it holds besides).
    func accepts(byteCount: Int) -> Bool { store != nil && maxBytes > 0 && byteCount + perAnswerBytes <= maxBytes / 2 }

    /// The bytes charged against the bound now: answers kept, being read back for the memo, or being sent (evicted
    /// ones included). Never past `maxBytes` (`pageproxy_memo_bytes`).
    var chargedBytes: Int { ledger.bytes }

    /// The bytes of the answers kept (tests).
    var keptBytes: Int { state.withLock { $0.bytes } }

    /// Charges an answer of `bodyBytes` against the bound, before its bytes are made, dropping the least recently used
    /// answers kept to make room; nil when it may not be kept (`accepts`) or when the answers requests hold (being read
    /// back or sent, evicted ones too) leave no room: then it is not memoized at all.
    func reserve(bodyBytes: Int) -> MergedAnswerCharge? {
        guard accepts(byteCount: bodyBytes) else { return nil }
        let bytes = bodyBytes + perAnswerBytes
        while true {
            if let charge = ledger.charge(bytes, within: maxBytes) { return charge }
            guard dropOldest(toMakeRoomFor: bytes) else { return nil }
        }
    }

    /// Drops the least recently used answer kept that no request holds (dropping one that a request sends would free
    /// nothing, and empty the memo for nothing while clients read slowly: it is in use, and goes to the newest end).
    /// Whether one was dropped; it is freed, its charge given back, when this returns, after the lock.
    private func dropOldest(toMakeRoomFor bytes: Int) -> Bool {
        let dropped = state.withLock { state -> Answer? in
            // What requests alone hold (read back, or evicted and still sent) leaves no room whatever is dropped.
            guard ledger.bytes - state.bytes + bytes <= maxBytes else { return nil }
            for _ in 0..<state.slots.count {
                guard let oldest = state.recency.oldest else { return nil }
                if !state.isHeldByARequest(oldest.key) { return state.removeSlot(oldest.key) }
                state.recency.moveToNewest(oldest.handle)
            }
            return nil
        }
        return dropped != nil
    }

    /// Keeps `answer`, charged by `reserve` (unless a page changed while it was built), in place of any answer kept for
    /// `key`.
    func keep(_ answer: Answer, for key: String) {
        guard let store, answer.charge.counts(against: ledger) else { return }
        guard let checkedAt = store.changeCount(ifCurrent: answer.stamps) else { return }
        // The answer replaced is freed here, after the lock: the loop may be waiting for it (issue 13, sixth pass).
        let replaced = state.withLock { state -> Answer? in
            let old = state.removeSlot(key)
            state.slots[key] = Slot(answer: answer, use: state.recency.insertNewest(key), checkedAt: checkedAt)
            state.bytes += answer.charge.bytes
            return old
        }
        _ = replaced
    }

    /// The fresh answer for `key`, when its stamps were last checked, and whether this hit is to be told to the store as a
    /// use of its pages and entry; a stale one is dropped, and so is one made after `now` (`WallClockStep`): a walk through
    /// the cache revalidates every page stored "in the future", and the memo never answers what that walk would not.
    private func lookUp(_ key: String, at now: Date) -> (Answer, UInt64, usesDue: Bool)? {
        let (found, stale) = state.withLock { state -> ((Answer, UInt64, usesDue: Bool)?, Answer?) in
            // One hash of the key (a long string) for the look-up and the use it records.
            guard let index = state.slots.index(forKey: key) else { return (nil, nil) }
            let slot = state.slots.values[index]
            guard now < slot.answer.freshUntil, !WallClockStep.isAhead(slot.answer.madeAt, of: now) else {
                state.slots.remove(at: index)
                state.recency.remove(slot.use)
                state.bytes -= slot.answer.charge.bytes
                return (nil, slot.answer)
            }
            state.recency.moveToNewest(slot.use)
            let usesDue = now.timeIntervalSince(slot.usedAt) >= Self.useInterval
            if usesDue { state.slots.values[index].usedAt = now }
            return ((slot.answer, slot.checkedAt, usesDue), nil)
        }
        // A stale answer is freed here, after the lock (the epoll loop may be waiting for it).
        _ = stale
        return found
    }

    /// Drops the answer for `key` if it is still the one checked at `checkedAt` (not one kept meanwhile).
    private func drop(_ key: String, ifBuiltAt checkedAt: UInt64) {
        let dropped = state.withLock { state -> Answer? in
            guard state.slots[key]?.checkedAt == checkedAt else { return nil }
            return state.removeSlot(key)
        }
        _ = dropped
    }

    /// Drops the answer kept for `key`, if any (one sent from its entry's file found written in place).
    func forget(_ key: String) {
        let dropped = state.withLock { $0.removeSlot(key) }
        _ = dropped
    }

    /// How many answers are kept (tests).
    var count: Int { state.withLock { $0.slots.count } }
}
