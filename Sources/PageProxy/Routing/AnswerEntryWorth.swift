/// Which memoized answers are also written to the cache directory as answer entries (`PersistedMergedAnswers`): only
/// those whose walk after a restart costs more than the entry does (review23 F6).
///
/// An answer entry costs an `fsync`ed write, an inode and at least one 4 KiB block, and a second copy of its pages'
/// bytes inside `cache.maxBytes`; it saves, once, the walk of the first repeat after a restart. A walk through one page
/// reads one file, as the answer's entry would (so a one-page answer saves nothing); a walk through a few small pages
/// reads a few small files (each ~6–9 µs, BENCHMARKS.md fourteenth pass): tens of microseconds, less than the write,
/// which every new version of the answer pays again. So: at least 2 pages, and at least 32 KiB of body.
struct AnswerEntryWorth: Sendable, Equatable {
    var minPages: Int
    var minBytes: Int

    /// At least 2 pages and 32 KiB.
    static let standard = AnswerEntryWorth(minPages: 2, minBytes: 32 << 10)
    /// Every memoized answer (tests of the entries themselves, with one-page answers).
    static let every = AnswerEntryWorth(minPages: 1, minBytes: 0)

    /// Whether an answer of `pages` pages and `bytes` bytes of body is written.
    func pays(pages: Int, bytes: Int) -> Bool { pages >= minPages && bytes >= minBytes }
}
