import Foundation
import PageProxyCore
import Synchronization

/// Merged answers whose every page is fresh in the page cache, kept in memory until the first of those pages goes
/// stale: a warm repeat is one lookup and one write, with no walk, no JSON scan and no hash.
///
/// It never answers what a walk through the page cache would not: the same fresh pages give the same bytes, and
/// the memo ends when the first of them would be revalidated. An answer with a page that was not stored (the
/// cache off, `no-store`, a stale page) is not kept; a client that asks for fresh pages bypasses it. Bounded in
/// bytes; the least recently used answer goes first.
final class MergedAnswerMemo: Sendable {
    struct Answer: Sendable {
        var body: [UInt8]
        var pages: Int
        var items: Int
        var truncated: Bool
        var etag: String
        var freshUntil: Date
        /// Headers the walk added (an auto route's `PageProxy-Scheme` …), sent again with the answer.
        var headers = HTTPHeaders()
    }

    private struct Slot {
        var answer: Answer
        var lastUse: Int
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var clock = 0
    }

    /// The most bytes of answers kept; 0 keeps none.
    let maxBytes: Int
    private let state = Mutex(State())

    init(maxBytes: Int) {
        self.maxBytes = max(0, maxBytes)
    }

    /// The key of an answer: everything that decides its bytes. The headers sent upstream (credentials too) are
    /// part of it, as they are of every page's key, so one client's answer never reaches another.
    static func key(route: String, base: PageURL, pageLimit: Int?, itemLimit: Int?, upstreamHeaders: HTTPHeaders) -> String {
        var key = "\(route)\u{0}\(base)\u{0}\(pageLimit ?? -1)\u{0}\(itemLimit ?? -1)"
        for (name, value) in upstreamHeaders { key += "\u{0}\(name.lowercased()):\(value)" }
        return key
    }

    /// The answer kept for `key`, if it is still fresh at `now`.
    func answer(for key: String, at now: Date) -> Answer? {
        state.withLock { state in
            guard let slot = state.slots[key] else { return nil }
            guard now < slot.answer.freshUntil else {
                state.slots[key] = nil
                state.bytes -= slot.answer.body.count
                return nil
            }
            state.clock += 1
            state.slots[key]?.lastUse = state.clock
            return slot.answer
        }
    }

    /// Keeps `answer` (unless it alone is over half the bound), evicting the least recently used to make room.
    func keep(_ answer: Answer, for key: String) {
        guard maxBytes > 0, answer.body.count <= maxBytes / 2 else { return }
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) { state.bytes -= old.answer.body.count }
            while state.bytes + answer.body.count > maxBytes, let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.slots[oldest.key] = nil
                state.bytes -= oldest.value.answer.body.count
            }
            state.clock += 1
            state.slots[key] = Slot(answer: answer, lastUse: state.clock)
            state.bytes += answer.body.count
        }
    }

    /// How many answers are kept (tests).
    var count: Int { state.withLock { $0.slots.count } }
}
