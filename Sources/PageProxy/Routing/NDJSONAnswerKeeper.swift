import Foundation
import PageProxyCore

/// An NDJSON walk's lines kept in the cache directory as the merged answer of the same items (issue 13, nineteenth
/// pass), so that a client that only ever asks for NDJSON finds after a restart the answer's entry its lines are sent
/// from (`AggregateResponder.memoizedLines`), as one that asks for the merged answer does.
///
/// The lines are the merged body's items each followed by a newline (`MergedAnswerLines`): kept as they are written,
/// they give the merged body, its item separators (where the newlines were: no scan) and its tag, made as the merged
/// walk makes it (`AggregateETag`: each page's stored checksum, item count and framed length). The entry is written only
/// for a walk that ended with every page stored and fresh, worth an entry (`AnswerEntryWorth`) and within the memo's
/// bound for one answer (`MergedAnswerMemo.accepts`); it is not kept in the memo itself (a repeat reads the entry).
///
/// What it holds counts in the memo's bound (review27 R2: a 32 MB walk held three uncharged copies, 128 MB at its
/// peak): the lines are gathered as the merged body itself (`[` first, turned into it in place: no second copy), their
/// room charged before it is taken as they grow (`MergedAnswerMemo.reserve`, doubling; the old room too while the array moves), and the write's two copies
/// (`AnswerEntries.write`: the entry's payload, its encoded file) charged before it is queued, all until it has run.
/// When the memo refuses, the keeper gives up and holds nothing; the walk streams on. One walk per entry at a time
/// (`AnswerEntryClaims`): walks of one list at once hold its lines once.
struct NDJSONAnswerKeeper {
    private let persisted: PersistedMergedAnswers
    private let entryKey: CacheKey
    /// This walk's hold on `entryKey`; nil once given up.
    private var claim: AnswerEntryClaims.Claim?
    /// `[` and then the lines so far: the merged body, once its newlines are made commas (`keep`).
    private var body: [UInt8] = [UInt8(ascii: "[")]
    /// What `body`'s room is charged against the memo's bound, and how many bytes that is.
    private var roomCharge: MergedAnswerCharge?
    private var charged = 0
    private var etag: AggregateETag
    private var framing = MergedJSONBody()
    private var (pages, items) = (0, 0)
    /// A page not stored, lines past the bound, or the memo out of room: nothing is kept, nor held.
    private var gaveUp = false
    /// The least room taken at once (then doubled): a few charges for a large answer, not one a page.
    static let firstRoom = 64 << 10

    /// Nil when the walk's answer is not kept: the memo or the cache off, a request whose answer is not
    /// (`RequestPlan.linesKey`: a window, a client's own cache limits), `_explain`, or one whose entry is there already
    /// or being gathered by another walk.
    /// Nor a walk the client forced (`_fresh`, `no-cache`): such a walk is how a client (and the tests) make pages new
    /// versions, and the merged answer built on the old ones is then walked again, as before, not replaced behind it.
    init?(plan: RequestPlan, walk: RouteWalk, persisted: PersistedMergedAnswers?) {
        guard let persisted, plan.linesKey != nil, !plan.controls.explain, !plan.controls.fresh, let entryKey = plan.answerKey,
            !persisted.entries.store.contains(entryKey), let claim = persisted.claims.claim(entryKey)
        else { return nil }
        self.persisted = persisted
        self.entryKey = entryKey
        self.claim = claim
        etag = AggregateETag(shape: plan.etagShape(itemsPath: walk.headers["PageProxy-Items-Path"]))
    }

    /// Adds the walk's next page, whose lines are `added`; every page of the walk is added, in order.
    mutating func add(_ page: Page, lines added: ArraySlice<UInt8>) {
        guard !gaveUp else { return }
        // Room for the closing bracket of an answer of no items too.
        guard page.storedChecksum != nil, makeRoom(for: body.count + added.count + 1) else { return giveUp() }
        // What the page adds to the merged body: `[` or `,` before its items (or nothing), and a comma between two of
        // them where the lines have a newline after each.
        let opening = framing.prefix(for: page)
        etag.add(page, framedCount: opening.count + added.count - (page.itemCount > 0 ? 1 : 0)) { EmptyCollection<UInt8>() }
        body.append(contentsOf: added)
        (pages, items) = (pages + 1, items + page.itemCount)
    }

    /// Makes `body` room for `count` bytes, charged before it is taken: doubling, up to the most one answer may be;
    /// false when that is past it, or the memo has no room. The new room is charged whole while the old is still held
    /// (the array's move to it holds both for a moment), and the old room's charge is given back once it is freed.
    private mutating func makeRoom(for count: Int) -> Bool {
        guard count > charged else { return true }
        let memo = persisted.memo
        // The most one answer may be (`MergedAnswerMemo.accepts`).
        let room = min(max(count, 2 * charged, Self.firstRoom), memo.maxBytes / 2 - memo.perAnswerBytes)
        guard count <= room, memo.accepts(byteCount: room), let charge = memo.reserve(bodyBytes: room) else { return false }
        body.reserveCapacity(room)
        (roomCharge, charged) = (charge, room)
        return true
    }

    /// Holds nothing any more, and keeps nothing.
    private mutating func giveUp() {
        gaveUp = true
        body = []
        roomCharge = nil
        claim = nil
    }

    /// Queues the write of the answer's entry, for a walk that has ended and been answered whole.
    consuming func keep(walk: RouteWalk, requested: RequestedItems, tally: CacheTally) {
        guard !gaveUp, walk.walker.hasHandedOutAll, let freshUntil = tally.freshUntil, persisted.worth.pays(pages: pages, bytes: body.count)
        else { return }
        let closing = framing.closing()
        etag.update(closing)
        // `[`, then the lines with each newline a comma and the last the closing bracket (`[]` for no items), in place.
        var separators: [Int] = []
        if items == 0 {
            guard body.count == 1 else { return }
            body.append(UInt8(ascii: "]"))
        } else {
            separators.reserveCapacity(items)
            body.withUnsafeMutableBufferPointer { body in
                for index in 1..<body.count where body[index] == UInt8(ascii: "\n") {
                    body[index] = UInt8(ascii: ",")
                    separators.append(index)
                }
            }
            // Items are compacted: a newline ends each, and only there.
            guard separators.count == items, separators.last == body.count - 1 else { return }
            body[body.count - 1] = UInt8(ascii: "]")
            separators.removeLast()
        }
        // The separators, and the write's two copies of the body and them (the entry's payload, its encoded file).
        let copy = body.count + items * MemoryLayout<Int>.stride
        var charges = [roomCharge]
        for bytes in [items * MemoryLayout<Int>.stride, copy, copy] {
            guard let charge = persisted.memo.reserve(bodyBytes: bytes) else { return }
            charges.append(charge)
        }
        var extraHeaders = walk.headers
        for field in requested.headers(walker: walk.walker, walkEnded: true) { extraHeaders.set(field.name, field.value) }
        let entry = AnswerEntry(
            etag: etag.finalize(), freshUntil: freshUntil, pages: pages, items: items, truncated: requested.wasTruncatedByCap(walk.walker),
            upstreamPrivate: tally.freshness.upstreamPrivate, headers: extraHeaders, manifest: [], itemSeparators: separators)
        // Made at the later of the walk's start and end, as a merged answer is (`MergedAnswerMemo.madeAt`, review27 R1).
        persisted.entries.keep(
            entry, body: body, stamps: tally.stamps, madeAt: persisted.memo.madeAt(walkBegan: tally.began), for: entryKey,
            holding: (charges, claim))
    }
}
