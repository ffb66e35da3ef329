import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// A memoized answer kept as a cache entry of its own (issue 13, sixteenth pass): read back only while it is whole,
/// fresh, and every page of its manifest is still the file it was built from; any other is removed.
@Suite struct AnswerEntriesTests {
    static let answerKey = CacheKey(hex: String(repeating: "ab", count: 32))!
    static let body = Array(#"[{"a":1},{"a":2}]"#.utf8)
    static let answer = AnswerEntry(
        etag: "\"tag\"", freshUntil: Date(timeIntervalSince1970: 2_000), pages: 2, items: 2, truncated: false, upstreamPrivate: true,
        headers: HTTPHeaders([("PageProxy-Total", "2")]), manifest: [])
    static let before = Date(timeIntervalSince1970: 1_500)
    /// When the answer was made: before `before`.
    static let made = Date(timeIntervalSince1970: 1_400)

    /// A store with two pages written, and the answer built from them written too.
    static func kept(budget: HeldEntryFileBudget = HeldEntryFileBudget(capacity: 8)) throws -> (TemporaryDirectory, DiskStore, AnswerEntries, [PageStamp]) {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let stamps = try [1, 2].map { page in try #require(store.write(DiskStoreTests.entry(page), for: DiskStoreTests.key(page))) }
        let entries = AnswerEntries(store: store, budget: budget)
        #expect(entries.write(answer, body: body, stamps: stamps, madeAt: made, for: answerKey))
        return (directory, store, entries, stamps)
    }

    @Test func anAnswerWrittenIsReadBackWithItsManifestAndSentFromItsFile() throws {
        let (directory, store, entries, stamps) = try Self.kept()
        let found = try #require(entries.read(Self.answerKey, at: Self.before))
        #expect(found.answer.etag == Self.answer.etag)
        #expect(found.answer.headers == Self.answer.headers)
        #expect(found.answer.upstreamPrivate && !found.answer.truncated && found.answer.items == 2)
        #expect(found.answer.manifest.map(\.key) == stamps.map(\.key))
        #expect(found.stamps == stamps)
        #expect(found.length == Self.body.count)
        #expect(found.file.readBody(0..<found.length) == Self.body)
        // A cache entry like any other: in the index, counted in the bound.
        #expect(store.contains(Self.answerKey))
        #expect(store.entryCount == 3)
        _ = directory
    }

    @Test("After a restart, a page another process replaces once the answer was read is a new version here (review23 F2)")
    func aPageReplacedByAnotherProcessAfterARestartIsANewVersion() throws {
        let (directory, _, _, _) = try Self.kept()
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(restarted.contains(DiskStoreTests.key(1)))
        let found = try #require(AnswerEntries(store: restarted).read(Self.answerKey, at: Self.before))
        // Another process sharing the directory writes page 1 anew; this one then reads it.
        let other = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        try #require(other.write(DiskStoreTests.entry(1, bodyBytes: 7), for: DiskStoreTests.key(1)) != nil)
        #expect(restarted.lookup(DiskStoreTests.key(1))?.entry.body.count == 7)
        let now = try #require(restarted.versions(of: [DiskStoreTests.key(1)]))
        #expect(now[0].stamp != found.stamps[0])
    }

    @Test func noAnswerIsWrittenFromAPageNoLongerTheVersionStamped() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let stamp = try #require(store.write(DiskStoreTests.entry(1), for: DiskStoreTests.key(1)))
        store.write(DiskStoreTests.entry(1, bodyBytes: 7), for: DiskStoreTests.key(1))
        let entries = AnswerEntries(store: store)
        #expect(!entries.write(Self.answer, body: Self.body, stamps: [stamp], madeAt: Self.made, for: Self.answerKey))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: Self.answerKey)))
    }

    /// A change made between the write and the read.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case pageRewritten, pageRemoved, pageTouched, stale, torn, headByteChanged, bodyByteChanged, otherVersion, otherKeyInside
        var testDescription: String { rawValue }
    }

    @Test(arguments: Change.allCases)
    func anAnswerIsDroppedAndRemovedWhenAnythingChanged(_ change: Change) throws {
        let (directory, store, entries, _) = try Self.kept()
        let path = store.path(for: Self.answerKey)
        var bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
        let answerAt = try #require(bytes.withUnsafeBytes(CacheEntryFormat.headLength(of:)))
        var now = Self.before
        switch change {
        case .pageRewritten: store.write(DiskStoreTests.entry(2, bodyBytes: 100), for: DiskStoreTests.key(2))
        case .pageRemoved: store.remove(DiskStoreTests.key(1))
        case .pageTouched:
            // Its times moved (a write in place would move them so): not provably the same bytes.
            var times = [timespec(tv_sec: 1, tv_nsec: 0), timespec(tv_sec: 1, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, store.path(for: DiskStoreTests.key(1)), &times, 0) == 0)
        case .stale: now = Self.answer.freshUntil
        case .torn: bytes.removeLast()
        case .headByteChanged: bytes[answerAt + AnswerEntryFormat.prefixLength + 1] ^= 1
        // Bit rot in the body, the size kept (DESIGN.md: a corrupted entry is detected and is a miss).
        case .bodyByteChanged: bytes[bytes.count - 2] ^= 1
        // The format before the item separators (nineteenth pass).
        case .otherVersion: bytes[answerAt + 7] = 1
        case .otherKeyInside: bytes[AnswerEntryFormat.prefixLength + 3] ^= 1
        }
        if [.torn, .headByteChanged, .bodyByteChanged, .otherVersion, .otherKeyInside].contains(change) {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        #expect(entries.read(Self.answerKey, at: now) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = directory
    }

    /// review23 F6: the room for an answer's entry is never made by evicting the pages of its own manifest (the answer
    /// would be dead on arrival): another entry goes; with none to take, the answer is not written and its pages stay.
    @Test("an answer's write never evicts its own pages: another entry goes, or it is not written", arguments: [true, false])
    func anAnswerWriteSparesItsOwnPages(withAnotherEntry: Bool) throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 40_000)
        // The other entry is the least recently used: without sparing, the pages would go right after it.
        if withAnotherEntry { try #require(store.write(DiskStoreTests.entry(3, bodyBytes: 10_000), for: DiskStoreTests.key(3)) != nil) }
        let stamps = try [1, 2].map { page in
            try #require(store.write(DiskStoreTests.entry(page, bodyBytes: 10_000), for: DiskStoreTests.key(page)))
        }
        // Past the bound with every entry there: room must be made.
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: withAnotherEntry ? 15_000 : 25_000)
        let entries = AnswerEntries(store: store)
        #expect(entries.write(Self.answer, body: body, stamps: stamps, madeAt: Self.made, for: Self.answerKey) == withAnotherEntry)
        for page in [1, 2] {
            #expect(store.contains(DiskStoreTests.key(page)))
            #expect(FileManager.default.fileExists(atPath: store.path(for: DiskStoreTests.key(page))))
        }
        #expect(!store.contains(DiskStoreTests.key(3)))
        #expect((entries.read(Self.answerKey, at: Self.before) != nil) == withAnotherEntry)
        #expect(store.totalBytes <= 40_000)
        _ = directory
    }

    /// h13-answer16 leftover: PageProxy's refresh of a page's time (every 64th hit, the LRU order) moved its modification
    /// and change times, which the manifest compared: every answer built on a page hit since was dropped at the next
    /// restart. The refresh sets the access time only, and the manifest compares inode, size and modification time.
    @Test("a page PageProxy refreshed (its LRU time) since the answer was written keeps the answer, in this run and after a restart")
    func aPageTouchedByPageProxyKeepsTheAnswer() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let stamps = try [1, 2].map { page in try #require(store.write(DiskStoreTests.entry(page), for: DiskStoreTests.key(page))) }
        // Written long ago: a refresh now cannot leave any of its times as they were.
        for page in [1, 2] {
            var old = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, store.path(for: DiskStoreTests.key(page)), &old, 0) == 0)
        }
        #expect(AnswerEntries(store: store).write(Self.answer, body: Self.body, stamps: stamps, madeAt: Self.made, for: Self.answerKey))
        CacheFileSystem.touch(store.path(for: DiskStoreTests.key(1)))
        var info = stat()
        #expect(stat(store.path(for: DiskStoreTests.key(1)), &info) == 0 && info.st_atim.tv_sec > 1_000)
        #expect(AnswerEntries(store: store).read(Self.answerKey, at: Self.before) != nil)
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(AnswerEntries(store: restarted).read(Self.answerKey, at: Self.before) != nil)
        _ = directory
    }

    @Test("a FIFO in an answer's place is a miss at once: its open never waits for a writer (attack17 H1: it held the thread, ~20 the process)", .timeLimit(.minutes(1)))
    func aFIFOInAnAnswersPlaceIsAMissAtOnce() async throws {
        let (directory, store, entries, stamps) = try Self.kept()
        let path = store.path(for: Self.answerKey)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        // On a thread of its own: a read that waited in `open` would hold it until a writer came.
        let found = Locked<AnswerEntries.Found??>(nil)
        Thread { found.withLock { $0 = .some(entries.read(Self.answerKey, at: Self.before)) } }.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while found.withLock({ $0 == nil }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        let answered = found.withLock { $0 != nil }
        if !answered {
            // Release the waiting open, so the test ends (failed) instead of leaving a thread blocked.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        #expect(answered)
        #expect(found.withLock { $0.map { $0 == nil } } == true)
        // The next answer is written over it, and read back.
        #expect(entries.write(Self.answer, body: Self.body, stamps: stamps, madeAt: Self.made, for: Self.answerKey))
        #expect(entries.read(Self.answerKey, at: Self.before) != nil)
        _ = directory
    }

    @Test("an answer made after now (the clock stepped back since) is not used, and removed: a walk revalidates its pages (attack17 M2)")
    func anAnswerMadeAfterNowIsNotUsed() throws {
        let (directory, store, entries, _) = try Self.kept()
        // Read back with when it was made.
        #expect(AnswerEntries(store: store).read(Self.answerKey, at: Self.made)?.madeAt == Self.made)
        // A moment before, within the tolerance for two threads' clocks: still used.
        #expect(AnswerEntries(store: store).read(Self.answerKey, at: Self.made.addingTimeInterval(-0.25)) != nil)
        // A day before: fresh by its `freshUntil`, but not used.
        #expect(entries.read(Self.answerKey, at: Self.made.addingTimeInterval(-86_400)) == nil)
        #expect(!FileManager.default.fileExists(atPath: store.path(for: Self.answerKey)))
        _ = directory
    }

    @Test func aFullDescriptorBudgetLeavesTheAnswerForLater() throws {
        let (directory, store, entries, _) = try Self.kept(budget: HeldEntryFileBudget(capacity: 0))
        #expect(entries.read(Self.answerKey, at: Self.before) == nil)
        #expect(FileManager.default.fileExists(atPath: store.path(for: Self.answerKey)))
        #expect(AnswerEntries(store: store).read(Self.answerKey, at: Self.before) != nil)
        _ = directory
    }

    @Test("a full descriptor budget reads nothing of the answer's file (review23 F7): a garbled one is left, not read and removed")
    func aFullDescriptorBudgetReadsNothing() throws {
        let (directory, store, entries, _) = try Self.kept(budget: HeldEntryFileBudget(capacity: 0))
        let path = store.path(for: Self.answerKey)
        try Data("not an answer entry".utf8).write(to: URL(fileURLWithPath: path))
        #expect(entries.read(Self.answerKey, at: Self.before) == nil)
        #expect(FileManager.default.fileExists(atPath: path))
        // With a place, it is read, found garbled, and removed.
        #expect(AnswerEntries(store: store).read(Self.answerKey, at: Self.before) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = directory
    }

    @Test func theFormatRoundTripsAndRefusesWhatItDidNotWrite() throws {
        var answer = Self.answer
        answer.manifest = [AnswerEntry.Page(key: DiskStoreTests.key(1), file: HeldEntryFile.Stamp(stat()))]
        let head = AnswerEntryFormat.encodeHead(answer, bodyLength: 5)
        #expect(try AnswerEntryFormat.decodeHead(head[...]) == answer)
        #expect(try AnswerEntryFormat.lengths(of: head[...])?.body == 5)
        var other = head
        other[0] = 0
        #expect(throws: AnswerEntryFormat.Invalid.badMagic) { try AnswerEntryFormat.decodeHead(other[...]) }
        #expect(throws: AnswerEntryFormat.Invalid.lengthMismatch) { try AnswerEntryFormat.decodeHead(head.dropLast()) }
    }
}
