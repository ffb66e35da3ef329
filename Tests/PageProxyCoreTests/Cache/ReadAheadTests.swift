import Foundation
import Glibc
import Synchronization
import Testing

@testable import PageProxyCore

/// Entries read ahead of a walk's lookups (issue 13, read-back after a restart): read and verified on another
/// thread, taken once by the lookup that wants them, never served once their page changed.
@Suite struct ReadAheadTests {
    /// A store over a directory holding entries 1 through `count` (`bodyBytes` each) written by another store: a restart.
    private static func restarted(in directory: TemporaryDirectory, count: Int = 3, bodyBytes: Int = 6000) -> DiskStore {
        let writer = DiskStore(directory: directory.path, maxBytes: 8 << 20)
        for page in 1...count { writer.write(DiskStoreTests.entry(page, bodyBytes: bodyBytes), for: DiskStoreTests.key(page)) }
        return DiskStore(directory: directory.path, maxBytes: 8 << 20)
    }

    /// The file's access time (what PageProxy's touch sets), in seconds.
    private static func modified(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return info.st_atim.tv_sec
    }

    @Test("an ended walk's read-ahead still queued reads nothing; one under way stops at its next page")
    func anEndedWalksReadsAreNotDone() async {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 6)
        let pages = CachingPageSource(store: store)
        let policy = CachePolicy(ttl: .seconds(60))
        let requests = (1...6).map { UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\($0)")!) }
        // The read-ahead thread busy with another walk's job while this walk asks, then ends.
        let gate = DispatchSemaphore(value: 0)
        pages.readAhead(policy: policy) {
            gate.wait()
            return []
        }
        let cancellation = ReadAheadCancellation()
        pages.readAhead(policy: policy, cancellation: cancellation) { requests }
        cancellation.cancel()
        gate.signal()
        await pages.waitForReadAhead()
        #expect(store.readAheadAskedCount == 0, "no key of the ended walk was looked at")
        #expect(store.readAheadCount == 0)
        // Cancelled while under way: the keys after it are not read.
        let asked = Atomic(0)
        store.readAhead((1...6).map(DiskStoreTests.key), until: { asked.add(1, ordering: .relaxed).newValue > 2 })
        #expect(store.readAheadAskedCount == 2)
        #expect(store.readAheadCount == 2)
    }

    @Test("callers waiting for the read-ahead thread hold no thread of the cooperative pool, however many they are")
    func waitingForTheReadAheadHoldsNoPoolThread() async {
        let directory = TemporaryDirectory()
        let pages = CachingPageSource(store: Self.restarted(in: directory))
        // The read-ahead thread is busy until a thread of the test's own lets it go: once a task has run on the pool
        // while more callers than the pool has threads wait, or after 10 s (what waits that block the pool come to).
        let busy = DispatchSemaphore(value: 0)
        pages.readAhead(policy: CachePolicy(ttl: .seconds(60))) {
            busy.wait()
            return []
        }
        let probeRan = DispatchSemaphore(value: 0)
        let ranWhileBusy = Locked(false)
        Thread.detachNewThread {
            ranWhileBusy.withLock { $0 = probeRan.wait(timeout: .now() + 10) == .success }
            busy.signal()
        }
        let waiters = (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in Task { await pages.waitForReadAhead() } }
        Task { probeRan.signal() }
        for waiter in waiters { await waiter.value }
        #expect(ranWhileBusy.value)
    }

    @Test("entries read ahead after a restart are served by their lookups without reading their files again")
    func lookupsTakeWhatWasReadAhead() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let keys = (1...3).map(DiskStoreTests.key)
        store.readAhead(keys)
        #expect(store.readAheadCount == 3)
        for (index, key) in keys.enumerated() {
            guard case .found(let entry, _) = store.lookupInline(key) else {
                Issue.record("page \(index + 1) not found")
                continue
            }
            #expect(entry == DiskStoreTests.entry(index + 1, bodyBytes: 6000))
        }
        #expect(store.fileReadCount == 0)
        #expect(store.readAheadCount == 0, "each one taken once")
        // The admission rule is that of a lookup that read the file: the first hit after a restart keeps no copy.
        #expect(!store.holdsInMemory(keys[0]))
        #expect(store.read(keys[0]) == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(store.fileReadCount == 1)
        #expect(store.holdsInMemory(keys[0]))
    }

    @Test("an entry looked up after the read-ahead was asked for (the walk got there first) is not read again, nor the next few")
    func anEntryTheWalkReachedFirstIsNotReadAgain() {
        let directory = TemporaryDirectory()
        let margin = DiskStore.overtakenMargin
        let store = Self.restarted(in: directory, count: margin + 3)
        let asked = store.useCount
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(1, bodyBytes: 6000))
        store.readAhead((1...(margin + 3)).map(DiskStoreTests.key), unusedSince: asked)
        // The walk is at page 1: pages 2 through 1 + margin are left to it (reading them, the read-ahead would race it
        // for them); the read-ahead goes on past them.
        #expect(store.readAheadCount == 2)
        #expect(store.readAheadAskedCount == 3)
        for page in 2...(margin + 1) { #expect(!store.holdsReadAhead(DiskStoreTests.key(page))) }
        #expect(store.holdsReadAhead(DiskStoreTests.key(margin + 2)))
        #expect(store.holdsReadAhead(DiskStoreTests.key(margin + 3)))
        _ = store.read(DiskStoreTests.key(margin + 2))
        #expect(store.fileReadCount == 1)
    }

    /// Issue 13, eleventh pass: the walk took the entry read ahead just before, so it looks up the next one now; read
    /// ahead as well, that one was read twice (45–129 of 501 files a first read-back after a restart).
    @Test("a read-ahead the walk has caught up with leaves it the next page and the margin, and goes on past them")
    func aWalkThatCaughtUpIsLeftTheNextPages() {
        let directory = TemporaryDirectory()
        let margin = DiskStore.overtakenMargin
        let store = Self.restarted(in: directory, count: margin + 6)
        let asked = store.useCount
        // Asked before each key: before page 4, the walk takes page 3, read ahead a moment ago.
        let before = Mutex(0)
        store.readAhead((1...(margin + 6)).map(DiskStoreTests.key), unusedSince: asked, until: {
            let page = before.withLock { before in
                before += 1
                return before
            }
            if page == 4 { #expect(store.read(DiskStoreTests.key(3)) == DiskStoreTests.entry(3, bodyBytes: 6000)) }
            return false
        })
        #expect(store.fileReadCount == 0, "page 3 was taken from the read-ahead")
        for page in 1...2 { #expect(store.holdsReadAhead(DiskStoreTests.key(page))) }
        // Page 4, the walk's next, and the margin after it are left to the walk.
        for page in 4...(4 + margin) { #expect(!store.holdsReadAhead(DiskStoreTests.key(page)), "page \(page)") }
        for page in (5 + margin)...(margin + 6) { #expect(store.holdsReadAhead(DiskStoreTests.key(page)), "page \(page)") }
        _ = store.read(DiskStoreTests.key(4))
        #expect(store.fileReadCount == 1)
    }

    @Test("a read-ahead no walk has overtaken reads every page asked, from the first")
    func aReadAheadAheadOfTheWalkReadsEveryPage() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 5)
        store.readAhead((1...5).map(DiskStoreTests.key), unusedSince: store.useCount)
        #expect(store.readAheadCount == 5)
    }

    @Test("an entry rewritten or removed after it was read ahead is never served as it was read")
    func aChangedPageIsNotServedFromTheReadAhead() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let (one, two) = (DiskStoreTests.key(1), DiskStoreTests.key(2))
        store.readAhead([one, two])
        store.write(DiskStoreTests.entry(9, bodyBytes: 10), for: one)
        store.remove(two)
        #expect(store.read(one) == DiskStoreTests.entry(9, bodyBytes: 10))
        #expect(store.read(two) == nil)
        #expect(store.readAheadCount == 0)
    }

    @Test("a torn file is not read ahead: its lookup still finds it torn, a miss, and removes it")
    func aTornFileIsLeftForTheLookup() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let key = DiskStoreTests.key(1)
        let path = store.path(for: key)
        #expect(truncate(path, 5000) == 0)
        store.readAhead([key])
        #expect(store.readAheadCount == 0)
        #expect(store.read(key) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("an entry read ahead is kept by the lookup that takes it on a lookup's own terms: in memory for one that keeps its first read, not for another, whose next lookup reads the file (torn by then: a miss, removed)")
    func aTakenEntryIsKeptOnALookupsTerms() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let (kept, notKept) = (DiskStoreTests.key(1), DiskStoreTests.key(2))
        store.readAhead([kept, notKept])
        #expect(store.readAheadCount == 2)
        #expect(store.lookup(kept, keepsFirstRead: true)?.entry == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(store.holdsInMemory(kept), "kept as the lookup's own read would have kept it")
        #expect(!store.fileWasReplaced(kept), "the inode read ahead is the record's")
        #expect(store.read(kept) == DiskStoreTests.entry(1, bodyBytes: 6000))
        guard case .found(let entry, _) = store.lookupInline(notKept) else {
            Issue.record("page 2 not found")
            return
        }
        #expect(entry == DiskStoreTests.entry(2, bodyBytes: 6000))
        #expect(!store.holdsInMemory(notKept), "the first hit after a restart keeps no copy")
        #expect(store.fileReadCount == 0)
        let path = store.path(for: notKept)
        #expect(truncate(path, 5000) == 0)
        #expect(store.read(notKept) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("reading ahead refreshes the file's time as the first hit after a restart would (the LRU order persisted)")
    func readingAheadTouchesTheFile() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 1)
        let key = DiskStoreTests.key(1)
        let path = store.path(for: key)
        var times = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        store.readAhead([key])
        #expect(Self.modified(path) > 1_000_000)
        #expect(store.read(key) == DiskStoreTests.entry(1, bodyBytes: 6000))
    }

    @Test("at most readAheadLimit entries are held: once full the read-ahead stops, and the pages asked for first stay held")
    func theReadAheadIsBounded() {
        let directory = TemporaryDirectory()
        let count = DiskStore.readAheadLimit + 6
        let store = Self.restarted(in: directory, count: count, bodyBytes: 100)
        let keys = (1...count).map(DiskStoreTests.key)
        store.readAhead(keys)
        #expect(store.readAheadCount == DiskStore.readAheadLimit)
        // The walk reaches its pages in the order it asked for them: the first ones are all there.
        for key in keys.prefix(DiskStore.readAheadLimit) { _ = store.read(key) }
        #expect(store.fileReadCount == 0, "no page asked for first was dropped for a later one")
        for key in keys.dropFirst(DiskStore.readAheadLimit) { _ = store.read(key) }
        #expect(store.fileReadCount == 6, "the six asked for last were not read ahead: their lookups read the files")
        // Read ahead again, one at a time: the order of keys taken meanwhile does not grow without bound.
        let again = Self.restarted(in: directory, count: count, bodyBytes: 100)
        for key in keys {
            again.readAhead([key])
            _ = again.read(key)
        }
        #expect(again.fileReadCount == 0)
        #expect(again.readAheadCount == 0)
    }

    @Test("entries a walk that ended left behind make room for another walk's once many lookups ran without them")
    func leftoversMakeRoom() {
        let directory = TemporaryDirectory()
        let limit = DiskStore.readAheadLimit
        let count = 3 * limit + 2
        let store = Self.restarted(in: directory, count: count, bodyBytes: 100)
        let keys = (1...count).map(DiskStoreTests.key)
        store.readAhead(keys.prefix(limit))
        #expect(store.readAheadCount == limit)
        // Another walk's pages, asked for while the first walk's are fresh from its read-ahead: none fits yet.
        store.readAhead([keys[count - 1]])
        #expect(store.readAheadCount == limit)
        #expect(!store.holdsReadAhead(keys[count - 1]))
        // The first walk ended (its client left): 2 × limit + 1 lookups of other pages pass without taking its entries.
        for key in keys[limit..<(3 * limit + 1)] { _ = store.read(key) }
        store.readAhead([keys[count - 1]])
        #expect(store.holdsReadAhead(keys[count - 1]), "a leftover made room")
        #expect(store.readAheadCount == limit)
    }

    @Test("an entry larger than the read-ahead's bytes is not read at all (its size is known before)")
    func anEntryTooLargeIsNotRead() {
        let directory = TemporaryDirectory()
        let writer = DiskStore(directory: directory.path, maxBytes: 64 << 20)
        writer.write(DiskStoreTests.entry(1, bodyBytes: 9 << 20), for: DiskStoreTests.key(1))
        let store = DiskStore(directory: directory.path, maxBytes: 64 << 20)
        let read = Mutex(0)
        store.readAhead([DiskStoreTests.key(1)]) { _ in
            read.withLock { $0 += 1 }
            return true
        }
        #expect(read.withLock { $0 } == 0)
        #expect(store.readAheadCount == 0)
    }

    @Test("a walk of pages known ahead tells its read-ahead of every later page once, in order, ahead of the window")
    func aWalkTellsItsReadAheadOfThePagesAhead() async throws {
        let told = Mutex<[[Int]]>([])
        let walker = Self.walkerOfPagesKnownAhead(PageReadAhead { urls in told.withLock { $0.append(urls().map(Self.pageNumber)) } })
        var aheadAtEachPage: [Int] = []
        let pages = try await walker.pages { page in
            aheadAtEachPage.append((told.withLock { $0.last?.last } ?? page.number) - page.number)
        }
        #expect(pages.flatMap(\.itemBytes) == FakePages.expected(total: 1000))
        let calls = told.withLock { $0 }
        // Pages 2…5 are the first window, read (or fetched) at once; the read-ahead starts past it.
        #expect(calls.flatMap { $0 } == Array(6...100), "every later page once, in order")
        #expect(calls.allSatisfy { $0.count <= PageWalker.readAheadDistance })
        Self.expectAhead(aheadAtEachPage, pages: 100)
    }

    /// Issue 13, twelfth pass: told after the window's pages were read in place, the read-ahead's thread started a page
    /// or more behind the walk, which then read the next pages itself, in lockstep with it.
    @Test("the read-ahead is told of the pages past the window before the walk reads the window's pages in place")
    func theReadAheadIsToldBeforeTheWindowIsRead() async throws {
        let events = Mutex<[String]>([])
        let readAhead = PageReadAhead(numbered: { first, _ in events.withLock { $0.append("told \(first)") } })
        let walker = Self.walkerOfPagesKnownAhead(readAhead) { url, number in
            events.withLock { $0.append("read \(number)") }
            return .json(FakePages.body(page: Self.pageNumber(url), pageSize: 10, total: 1000), headers: [("X-Total-Pages", "100")])
        }
        _ = try await walker.pages { _ in }
        // Page 1 says there are 100; the window (pages 2…5) is read after the pages past it are told.
        #expect(Array(events.withLock { $0 }.prefix(6)) == ["read 1", "told 6", "read 2", "read 3", "read 4", "read 5"])
    }

    /// Issue 13, twelfth pass: each telling may wake the read-ahead's thread, which takes the walk's CPU on a busy
    /// machine; 16 pages a telling were ~30 a 501-page walk.
    @Test("a walk of 100 pages known ahead tells its read-ahead in two tellings: a whole distance, then the rest once half of it is taken")
    func aWalkTellsItsReadAheadInFewTellings() async throws {
        let told = Mutex<[[Int]]>([])
        let walker = Self.walkerOfPagesKnownAhead(PageReadAhead { urls in told.withLock { $0.append(urls().map(Self.pageNumber)) } })
        _ = try await walker.pages { _ in }
        let calls = told.withLock { $0 }
        #expect(calls.map(\.count) == [64, 31], "pages 6…69, then 70…100")
        #expect(calls.flatMap { $0 } == Array(6...100))
    }

    /// Review of the fourth pass: a walk whose first window was in memory marked the pages past it as told although
    /// nothing read them, so the first pages on disk were never read ahead.
    @Test("pages offered while the read-ahead is not wanted are offered again once it is, from the walk's position on")
    func pagesNotWantedAreOfferedAgain() async throws {
        let told = Mutex<[[Int]]>([])
        // Not wanted until the walk has handed out page 20 (its first pages were in memory, say).
        let handedOut = Mutex(0)
        let walker = Self.walkerOfPagesKnownAhead(
            PageReadAhead { handedOut.withLock { $0 } >= 20 } read: { urls in told.withLock { $0.append(urls().map(Self.pageNumber)) } })
        let pages = try await walker.pages { page in handedOut.withLock { $0 = page.number } }
        #expect(pages.flatMap(\.itemBytes) == FakePages.expected(total: 1000))
        let calls = told.withLock { $0 }
        let first = try #require(calls.first?.first)
        // Told from where the walk was when it was first wanted (page 20 handed out, its window launched) on.
        #expect(first > 20 && first <= 21 + 4, "first told: page \(first)")
        #expect(calls.flatMap { $0 } == Array(first...100), "every later page once, in order")
    }

    @Test("a walk of pages known only from the one before tells its read-ahead of the strategy's guesses, once each, in order")
    func aSequentialWalkTellsItsReadAheadOfGuesses() async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        let transport = FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            return .json(FakePages.body(page: page, pageSize: 10, total: 995))
        }
        let told = Mutex<[[Int]]>([])
        let walker = PageWalker.make(.pageNumber(scheme), transport: transport) { options in
            options.readAhead = PageReadAhead { urls in told.withLock { $0.append(urls().map(Self.pageNumber)) } }
        }
        var aheadAtEachPage: [Int] = []
        let pages = try await walker.pages { page in
            aheadAtEachPage.append((told.withLock { $0.last?.last } ?? page.number) - page.number)
        }
        #expect(pages.flatMap(\.itemBytes) == FakePages.expected(total: 995))
        let guessed = told.withLock { $0 }.flatMap { $0 }
        // Guesses go on past the last page (nothing says it is the last until it arrives): at most a distance past it.
        // Page 2 is known (and read) with page 1; guesses start at page 3.
        #expect(guessed == Array(3...guessed.count + 2), "every page once, in order")
        #expect(guessed.count >= 98 && guessed.count <= 98 + PageWalker.readAheadDistance)
        Self.expectAhead(aheadAtEachPage, pages: 100)
    }

    /// Issue 13, eleventh pass: the read-ahead keys the pages where the walk looks for their keys, by page number.
    @Test("the number a walk tells its read-ahead with is the first told page's, for pages known ahead and for guesses")
    func theNumberToldIsTheFirstPagesNumber() async throws {
        let told = Mutex<[(first: Int, pages: [Int])]>([])
        let readAhead = PageReadAhead(numbered: { first, urls in told.withLock { $0.append((first, urls().map(Self.pageNumber))) } })
        let walker = Self.walkerOfPagesKnownAhead(readAhead)
        _ = try await walker.pages { _ in }
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        let transport = FakeTransport { url in
            .json(FakePages.body(page: Int(url.queryValue("page") ?? "1") ?? 1, pageSize: 10, total: 995))
        }
        let guessing = PageWalker.make(.pageNumber(scheme), transport: transport) { options in options.readAhead = readAhead }
        _ = try await guessing.pages { _ in }
        let calls = told.withLock { $0 }
        #expect(calls.count >= 4, "two tellings of pages known ahead, two or more of guesses")
        for call in calls { #expect(call.pages.first.map { $0 == call.first } ?? true, "told \(call.first) for \(call.pages)") }
    }

    /// Issue 13, thirteenth pass: a walk whose pages known ahead all fit its window has none past it to tell, and
    /// tells nothing (a telling of no page was a hop to the read-ahead's thread for nothing); one page past the window
    /// is told, once.
    @Test("a walk tells its read-ahead only of pages past its window, never of none")
    func aWalkTellsNoEmptyList() async throws {
        for (total, expected) in [(5, [[Int]]()), (6, [[6]])] {
            let told = Mutex<[[Int]]>([])
            let readAhead = PageReadAhead(numbered: { _, urls in told.withLock { $0.append(urls().map(Self.pageNumber)) } })
            var scheme = PaginationScheme.PageNumber()
            scheme.pageSize = 10
            scheme.totalPagesHeader = "X-Total-Pages"
            let transport = FakeTransport { url in
                let page = Int(url.queryValue("page") ?? "1") ?? 1
                return .json(FakePages.body(page: page, pageSize: 10, total: total * 10), headers: [("X-Total-Pages", "\(total)")])
            }
            let walker = PageWalker.make(.pageNumber(scheme), transport: transport) { options in
                options.concurrency = 4
                options.readAhead = readAhead
            }
            let pages = try await walker.pages { _ in }
            #expect(pages.count == total)
            #expect(told.withLock { $0 } == expected, "\(total) pages")
        }
    }

    /// A walk of 100 pages of 10 items whose total is known from the first, four at a time, telling `readAhead`; with
    /// `cachedPage`, its pages are read in place through it.
    private static func walkerOfPagesKnownAhead(_ readAhead: PageReadAhead, cachedPage: CachedPageReader? = nil) -> PageWalker {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = 10
        scheme.totalPagesHeader = "X-Total-Pages"
        let transport = FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            return .json(FakePages.body(page: page, pageSize: 10, total: 1000), headers: [("X-Total-Pages", "100")])
        }
        return PageWalker.make(.pageNumber(scheme), transport: transport) { options in
            options.concurrency = 4
            options.readAhead = readAhead
            options.cachedPage = cachedPage
        }
    }

    private static func pageNumber(_ url: PageURL) -> Int { Int(url.queryValue("page") ?? "") ?? -1 }

    /// From the second page on, the walk told of pages at least half a distance ahead of each page it handed out,
    /// until the last pages were all told.
    private static func expectAhead(_ ahead: [Int], pages: Int) {
        for (index, ahead) in ahead.enumerated().dropFirst() where index + 1 + PageWalker.readAheadDistance / 2 <= pages {
            #expect(ahead >= PageWalker.readAheadDistance / 2, "page \(index + 1)")
        }
    }
}
