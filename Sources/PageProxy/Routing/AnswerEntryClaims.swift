import PageProxyCore
import Synchronization

/// The answer entries whose lines an NDJSON walk is gathering (`NDJSONAnswerKeeper`): one walk per entry at a time, so
/// that walks of one list at once (after a restart, before its entry is written) hold its lines once, not once each
/// (review27 R2).
final class AnswerEntryClaims: Sendable {
    private let keys = Mutex(Set<CacheKey>())

    init() {}

    /// A walk's hold on one entry's key, given back when it goes: the walk gave up or failed, or the entry's write ran.
    final class Claim: Sendable {
        private let key: CacheKey
        private let claims: AnswerEntryClaims

        fileprivate init(key: CacheKey, claims: AnswerEntryClaims) {
            self.key = key
            self.claims = claims
        }

        deinit { claims.release(key) }
    }

    /// The hold on `key`, or nil while another walk has it.
    func claim(_ key: CacheKey) -> Claim? {
        keys.withLock { $0.insert(key).inserted } ? Claim(key: key, claims: self) : nil
    }

    /// How many keys are held (tests).
    var count: Int { keys.withLock { $0.count } }

    private func release(_ key: CacheKey) {
        _ = keys.withLock { $0.remove(key) }
    }
}
