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
struct NDJSONAnswerKeeper {
    private let persisted: PersistedMergedAnswers
    private let entryKey: CacheKey
    private var lines: [UInt8] = []
    private var etag: AggregateETag
    private var framing = MergedJSONBody()
    private var (pages, items) = (0, 0)
    /// A page not stored, or lines past the bound: nothing is kept.
    private var gaveUp = false

    /// Nil when the walk's answer is not kept: the memo or the cache off, a request whose answer is not
    /// (`RequestPlan.linesKey`: a window, a client's own cache limits), `_explain`, or one whose entry is there already.
    /// Nor a walk the client forced (`_fresh`, `no-cache`): such a walk is how a client (and the tests) make pages new
    /// versions, and the merged answer built on the old ones is then walked again, as before, not replaced behind it.
    init?(plan: RequestPlan, walk: RouteWalk, persisted: PersistedMergedAnswers?) {
        guard let persisted, plan.linesKey != nil, !plan.controls.explain, !plan.controls.fresh, let entryKey = plan.answerKey,
            !persisted.entries.store.contains(entryKey)
        else { return nil }
        self.persisted = persisted
        self.entryKey = entryKey
        etag = AggregateETag(shape: plan.etagShape(itemsPath: walk.headers["PageProxy-Items-Path"]))
    }

    /// Adds the walk's next page, whose lines are `added`; every page of the walk is added, in order.
    mutating func add(_ page: Page, lines added: ArraySlice<UInt8>) {
        guard !gaveUp else { return }
        // The merged body is one byte longer than the lines.
        guard page.storedChecksum != nil, persisted.memo.accepts(byteCount: lines.count + added.count + 1) else {
            gaveUp = true
            lines = []
            return
        }
        // What the page adds to the merged body: `[` or `,` before its items (or nothing), and a comma between two of
        // them where the lines have a newline after each.
        let opening = framing.prefix(for: page)
        etag.add(page, framedCount: opening.count + added.count - (page.itemCount > 0 ? 1 : 0)) { EmptyCollection<UInt8>() }
        lines.append(contentsOf: added)
        (pages, items) = (pages + 1, items + page.itemCount)
    }

    /// Queues the write of the answer's entry, for a walk that has ended and been answered whole.
    consuming func keep(walk: RouteWalk, requested: RequestedItems, tally: CacheTally) {
        let bytes = lines.count + 1
        guard !gaveUp, walk.walker.hasHandedOutAll, let freshUntil = tally.freshUntil, persisted.worth.pays(pages: pages, bytes: bytes) else { return }
        let closing = framing.closing()
        etag.update(closing)
        // `[`, then the lines with each newline a comma and the last the closing bracket (`[]` for no items).
        var body: [UInt8] = []
        var separators: [Int] = []
        if items == 0 {
            body = Array("[]".utf8)
        } else {
            body.reserveCapacity(bytes)
            body.append(UInt8(ascii: "["))
            body.append(contentsOf: lines)
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
        var extraHeaders = walk.headers
        for field in requested.headers(walker: walk.walker, walkEnded: true) { extraHeaders.set(field.name, field.value) }
        let entry = AnswerEntry(
            etag: etag.finalize(), freshUntil: freshUntil, pages: pages, items: items, truncated: requested.wasTruncatedByCap(walk.walker),
            upstreamPrivate: tally.freshness.upstreamPrivate, headers: extraHeaders, manifest: [], itemSeparators: separators)
        persisted.entries.keep(entry, body: body, stamps: tally.stamps, madeAt: persisted.memo.clock.wallNow(), for: entryKey)
    }
}
