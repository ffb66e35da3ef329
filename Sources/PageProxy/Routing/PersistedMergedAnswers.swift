import Foundation
import PageProxyCore

/// The memo's answers kept in the cache directory too (`AnswerEntries`), so that an exact repeat after a restart is
/// sent from one file, with no walk (issue 13: "Large answers memoized too … kept on disk … as a cache entry of its own
/// and replayed while its pages stay fresh"; sixteenth pass).
///
/// What the memo keeps after a walk is written there in the background. A request the memo has no answer for looks
/// there (only when the store's index has an entry under the answer's key, `AnswerEntryKey`): an answer whose every
/// page file is still the one it was built from, and fresh, is kept in the memo, its body left in its file, and sent
/// from it, by the memo's rules (its stamps are the pages' versions now: a change of any page drops it). The memo off
/// (`memoBytes: 0`) writes and reads none; answers too small to pay for their entry are not written (`AnswerEntryWorth`).
struct PersistedMergedAnswers: Sendable {
    let entries: AnswerEntries
    let memo: MergedAnswerMemo
    var worth = AnswerEntryWorth.standard
    /// Requests for one answer at once (after a restart, review23 F7): one reads its entry, the others wait for that read
    /// and are given the same answer, as a page's fetches are collapsed; each had opened the file, checked every page
    /// and held a descriptor, and the last one's answer replaced the others' in the memo.
    let reads = FetchCollapser<CacheKey, MergedAnswerMemo.Answer?>()
    /// The entries an NDJSON walk is gathering the lines of: one walk each at a time (`NDJSONAnswerKeeper`).
    let claims = AnswerEntryClaims()

    /// The key an answer of `pages` pages and `bytes` bytes to `plan` is written under, when it is worth an entry.
    func entryKey(for plan: RequestPlan, pages: Int, bytes: Int) -> CacheKey? {
        worth.pays(pages: pages, bytes: bytes) ? plan.answerKey : nil
    }

    /// Queues the write of `answer`, just memoized from a walk, under `key` (`entryKey`).
    func keep(_ answer: MergedAnswerMemo.Answer, key: CacheKey) {
        let entry = AnswerEntry(
            etag: answer.etag, freshUntil: answer.freshUntil, pages: answer.pages, items: answer.items, truncated: answer.truncated,
            upstreamPrivate: answer.upstreamPrivate, headers: answer.extraHeaders, manifest: [])
        entries.keep(entry, body: answer.body, stamps: answer.stamps, madeAt: answer.madeAt, for: key)
    }

    /// The answer to `plan` kept in the cache directory, now in the memo too; nil when there is none the request may
    /// have (the caller walks). For NDJSON, the merged answer of the same items (`RequestPlan.linesKey`).
    func answer(for plan: RequestPlan) async -> MergedAnswerMemo.Answer? {
        guard let key = plan.answerKey, let memoKey = plan.memoKey ?? plan.linesKey, entries.store.contains(key) else { return nil }
        let (answer, _) = await reads.value(for: key) { [self] in await read(key, memoKey: memoKey) }
        return answer ?? nil
    }

    /// The answer kept under `key`, read from its entry and kept in the memo under `memoKey`; nil when there is none the
    /// request may have.
    private func read(_ key: CacheKey, memoKey: String) async -> MergedAnswerMemo.Answer? {
        guard
            // A file written in place while it is sent: the answer is cut, and is neither kept here nor there any more.
            let found = await entries.find(key, at: memo.clock.wallNow(), onChanged: { [memo] in memo.forget(memoKey) }),
            // Its body stays in the file, and is charged all the same (review23 F3): a file held open keeps its disk
            // space after an eviction or a replacement until it is closed, and the memo's bound is what bounds the
            // answers held so (with their descriptors), as it bounds those in memory.
            let charge = memo.reserve(bodyBytes: found.length)
        else { return nil }
        let kept = found.answer
        let answer = MergedAnswerMemo.Answer(
            body: [], pages: kept.pages, items: kept.items, truncated: kept.truncated, etag: kept.etag, freshUntil: kept.freshUntil,
            madeAt: found.madeAt, stamps: found.stamps, extraHeaders: kept.headers, upstreamPrivate: kept.upstreamPrivate, charge: charge,
            file: found.file, length: found.length, entryKey: key, itemSeparators: kept.itemSeparators)
        memo.keep(answer, for: memoKey)
        return answer
    }
}
