/// A 128-bit digest of a page URL's path and query: what a walk's loop guard keeps of each URL it has seen, instead
/// of the URL (attack5 F4: an upstream whose next links carry 64 KB cursors grew a walk by 64 KB a page, 27 → 215 MB
/// in 12 s for four walks).
///
/// Two XXH64 chains with independent seeds over the path, a separator and the query. The origin is left out, as
/// `PageURL.hash(into:)` leaves it out: every URL a walk keeps has passed its origin guard first.
///
/// A collision can only make the guard see a page as seen when it was not: a walk that fails with a loop error (or a
/// lookahead guess not sent), never a wrong answer. For an honest upstream the odds are n²/2¹²⁹ for a walk of n pages:
/// 1.5 × 10⁻²⁷ at a million pages. A hostile upstream could craft colliding links (XXH64 is not a cryptographic hash),
/// but it would only fail its own walk, which it can do anyway by answering 500.
struct PageURLDigest: Hashable, Sendable {
    private let low: UInt64
    private let high: UInt64

    init(_ url: PageURL) {
        low = Self.chain(url, seed: 0x5041_4745_5052_4F58)
        high = Self.chain(url, seed: 0x9E37_79B9_7F4A_7C15)
    }

    /// XXH64 of the path, then of the query seeded with that (a URL with no query differs from one with an empty query).
    private static func chain(_ url: PageURL, seed: UInt64) -> UInt64 {
        let path = XXHash64.hash(url.path.utf8, seed: seed)
        guard let query = url.query else { return path }
        return XXHash64.hash(query.utf8, seed: path ^ 0x3F)
    }

    /// One of the two halves is hash enough for a set: both come from well-mixed hashes.
    func hash(into hasher: inout Hasher) {
        hasher.combine(low)
    }
}
