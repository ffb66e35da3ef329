import PageProxyCore

/// What the memo's bound counts: the bytes of every memoized answer that anything holds. It is taken before the
/// answer's bytes are made (read back from its spool, joined from its pages) and lives as long as the answer does:
/// kept in the memo, being sent to a client, or both, an evicted answer still being sent included (attack5 F1: 40
/// stalled clients each held an answer the memo had evicted, +6.6 MB a client, none of it counted).
///
/// A request holds an answer for as long as it sends its bytes (the answer is its owner, so the answer's last
/// reference going away, on whatever path the send ended, gives the charge back): ARC is the count of holders, so a
/// memo hit costs no more than the reference it already took.
final class MergedAnswerCharge: Sendable {
    /// The bytes charged: the answer's body and what it holds besides (`MergedAnswerMemo.perAnswerBytes`).
    let bytes: Int
    private let ledger: Ledger

    fileprivate init(bytes: Int, ledger: Ledger) {
        self.bytes = bytes
        self.ledger = ledger
    }

    deinit { ledger.release(bytes) }

    /// Whether this charge counts against `ledger`.
    func counts(against ledger: Ledger) -> Bool { self.ledger === ledger }

    /// The bytes charged against one memo's bound, all together: one atomic, no lock, so that giving a charge back
    /// (the end of every memo answer's send) never waits for the memo.
    final class Ledger: Sendable {
        /// Its limit is each charge's (the memo's bound).
        private let charged = BoundedCount(limit: .max)

        /// The bytes charged now.
        var bytes: Int { charged.count }

        /// Charges `bytes`, or nil when that would take the total past `limit` (the total never passes it).
        func charge(_ bytes: Int, within limit: Int) -> MergedAnswerCharge? {
            charged.take(bytes, within: limit) ? MergedAnswerCharge(bytes: bytes, ledger: self) : nil
        }

        fileprivate func release(_ bytes: Int) {
            charged.giveBack(bytes)
        }
    }
}
