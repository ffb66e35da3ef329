import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// Issue 13, sixteenth pass: a memoized merged answer is kept in the cache directory as an entry of its own
/// (`PersistedMergedAnswers`), and the first repeat after a restart is sent from it with no walk — only while every
/// page it was built from is still the same file and fresh; any change of a page between the runs drops it, and the
/// walk's answer is given.
@Suite struct PersistedAnswerTests {
    static let v1 = CacheCoherenceTests.v1
    static let v2 = CacheCoherenceTests.v2
    static let oneHit = CacheCoherenceTests.oneHit
    static let oneMiss = CacheCoherenceTests.oneMiss

    /// A proxy over `directory` with one route to `upstream` (`route` changes its config); its answer entries written
    /// before it stops.
    @discardableResult
    static func run<T>(
        _ upstream: ChangingUpstream, directory: String, maxBytes: Int = 64 << 20, memoBytes: Int? = nil, clock: PageProxyClock = .system,
        route: (inout RouteConfig) -> Void = { _ in }, _ body: (TestStack) async throws -> T
    ) async throws -> T {
        var config = upstream.route
        route(&config)
        return try await TestStack.run(routes: [], configure: { settings in
            settings.routes = [config]
            settings.cache = CacheConfig(directory: directory, maxBytes: maxBytes, memoBytes: memoBytes)
            // One-page answers, which are not written unless asked (`AnswerEntryWorth`).
            settings.cache.answerEntryWorth = .every
        }, clock: clock) { stack in
            let result = try await body(stack)
            await AnswerEntries.waitForWrites()
            return result
        }
    }

    static func withDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-answers-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    /// How many page lookups the proxy's store has counted since it started (an answer from its own entry makes none).
    static func storeUses(_ stack: TestStack) -> UInt64 { stack.app.pages.store?.useCount ?? 0 }

    /// The answer entries in `directory` (entries whose body is an answer's), by path.
    static func answerFiles(in directory: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".entry") }.map { "\(directory)/\($0)" }.filter { path in
            guard let bytes = FileManager.default.contents(atPath: path).map(Array.init),
                let head = bytes.withUnsafeBytes(CacheEntryFormat.headLength(of:)), bytes.count >= head + 4
            else { return false }
            return bytes[head..<head + 4].elementsEqual(AnswerEntryFormat.magic)
        }
    }

    @Test("after a restart, a memoized answer is sent from its own entry: no page looked up, no upstream request; the same ETag, a 304, a HEAD")
    func aMemoizedAnswerSurvivesARestart() async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            let walked = try await Self.run(upstream, directory: directory) { stack in try await stack.get("/changing") }
            #expect(Self.answerFiles(in: directory).count == 1)
            try await Self.run(upstream, directory: directory) { stack in
                upstream.resetLog()
                let uses = Self.storeUses(stack)
                let replayed = try await stack.get("/changing")
                #expect(replayed.status == 200)
                #expect(replayed.text == Self.v1)
                #expect(replayed.header("PageProxy-Cache") == Self.oneHit)
                #expect(replayed.header("ETag") == walked.header("ETag"))
                #expect(replayed.header("Content-Length") == String(Self.v1.utf8.count))
                // The same directives; its max-age counts down from the walk's (by the seconds between, never more).
                let maxAge = { (response: RawHTTPClient.Response) in
                    response.header("Cache-Control").flatMap { $0.firstMatch(of: /max-age=(\d+)/).flatMap { Int($0.1) } }
                }
                #expect(replayed.header("Cache-Control")?.replacing(/max-age=\d+/, with: "") == walked.header("Cache-Control")?.replacing(/max-age=\d+/, with: ""))
                #expect(maxAge(replayed).map { age in maxAge(walked).map { age <= $0 && age > 0 } ?? false } == true)
                #expect(Self.storeUses(stack) == uses)
                #expect(upstream.received.isEmpty)
                // Its body held in its file is charged to the memo's bound as one in memory is (review23 F3).
                let metrics = try await stack.get("/metrics").text
                let charged = metrics.split(separator: "\n").first { $0.hasPrefix("pageproxy_memo_bytes ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
                #expect(charged == Self.v1.utf8.count + MergedAnswerMemo.measuredAnswerBytes)
                let notModified = try await stack.get("/changing", headers: ["If-None-Match": walked.header("ETag") ?? ""])
                #expect(notModified.status == 304)
                let head = try await stack.client().request("/changing", method: "HEAD")
                #expect(head.status == 200)
                #expect(head.header("ETag") == walked.header("ETag"))
                #expect(head.body.isEmpty)
                #expect(Self.storeUses(stack) == uses)
                #expect(upstream.received.isEmpty)
            }
        }
        await upstream.stop()
    }

    @Test("only answers worth an entry are written (review23 F6): not one of one page, nor a small one of several pages; one of 2 pages or more and 32 KiB or more is")
    func onlyAnswersWorthAnEntryAreWritten() async throws {
        try await CacheTests.run { stack, root in
            // One page; then five pages of ~4 KB: each memoized, neither written.
            #expect(try await stack.get("/github?mock_total=3").status == 200)
            let small = try await stack.get("/github?mock_total=50")
            #expect(small.header("PageProxy-Pages") == "5")
            #expect(small.body.count < AnswerEntryWorth.standard.minBytes)
            await AnswerEntries.waitForWrites()
            #expect(Self.answerFiles(in: root).isEmpty)
            let large = try await stack.get("/github?mock_total=200")
            #expect(large.body.count >= AnswerEntryWorth.standard.minBytes)
            await AnswerEntries.waitForWrites()
            #expect(Self.answerFiles(in: root).count == 1)
            // Counted apart from the pages (review23 F7): 1 + 5 + 20 pages, and the one answer.
            let metrics = try await stack.get("/metrics").text.split(separator: "\n")
            #expect(metrics.contains("pageproxy_cache_entries 26"))
            #expect(metrics.contains("pageproxy_cache_answer_entries 1"))
        }
    }

    /// How a page changes in the cache between the run that memoized the answer and the next.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case replacedBy200, refreshedBy304, removedByNoStore
        var testDescription: String { rawValue }
    }

    @Test("a page replaced, refreshed or removed between the runs drops the kept answer: the walk's answer is given", arguments: Change.allCases)
    func aChangedPageDropsTheAnswer(_ change: Change) async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            let walked = try await Self.run(upstream, directory: directory) { stack in
                let walked = try await stack.get("/changing")
                await AnswerEntries.waitForWrites()
                switch change {
                case .replacedBy200: upstream.set(body: Self.v2, cacheControl: "max-age=600")
                case .refreshedBy304: break
                case .removedByNoStore: upstream.set(body: Self.v2, cacheControl: "no-store")
                }
                // Only the page changes: NDJSON is never memoized.
                _ = try await stack.get("/changing", headers: CacheCoherenceTests.ndjsonNoCache)
                return walked
            }
            try await Self.run(upstream, directory: directory) { stack in
                upstream.resetLog()
                let uses = Self.storeUses(stack)
                let answer = try await stack.get("/changing")
                switch change {
                case .replacedBy200:
                    #expect(answer.text == Self.v2)
                    #expect(answer.header("PageProxy-Cache") == Self.oneHit)
                    #expect(upstream.received.isEmpty)
                case .refreshedBy304:
                    // The same bytes, so the same ETag: but from the walk, which looked the page up.
                    #expect(answer.text == Self.v1)
                    #expect(answer.header("ETag") == walked.header("ETag"))
                    #expect(answer.header("PageProxy-Cache") == Self.oneHit)
                    #expect(upstream.received.isEmpty)
                case .removedByNoStore:
                    #expect(answer.text == Self.v2)
                    #expect(answer.header("PageProxy-Cache") == Self.oneMiss)
                    #expect(upstream.received.count == 1)
                }
                // The walk looked the page up (a page not stored is no use of the store).
                if change != .removedByNoStore { #expect(Self.storeUses(stack) > uses) }
            }
        }
        await upstream.stop()
    }

    @Test("a page evicted between the runs (its file unlinked, as an eviction does) drops the kept answer: the page is fetched again")
    func anEvictedPageDropsTheAnswer() async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            let answers = Self.answerFiles(in: directory)
            #expect(answers.count == 1)
            let entries = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".entry") } ?? []
            let pages = entries.map { "\(directory)/\($0)" }.filter { !answers.contains($0) }
            #expect(pages.count == 1)
            for page in pages { try FileManager.default.removeItem(atPath: page) }
            try await Self.run(upstream, directory: directory) { stack in
                upstream.resetLog()
                let answer = try await stack.get("/changing")
                #expect(answer.text == Self.v1)
                #expect(answer.header("PageProxy-Cache") == Self.oneMiss)
                #expect(upstream.received.count == 1)
            }
        }
        await upstream.stop()
    }

    @Test("a kept answer whose page has gone stale by the time of the next run is not sent: the page is revalidated")
    func aStalePageDropsTheAnswer() async throws {
        let upstream = try ChangingUpstream()
        let later = Date().addingTimeInterval(700)
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            #expect(Self.answerFiles(in: directory).count == 1)
            // Ten minutes and more later (the page's max-age is 600 s).
            try await Self.run(upstream, directory: directory, clock: .wall { later }) { stack in
                upstream.resetLog()
                let answer = try await stack.get("/changing")
                #expect(answer.text == Self.v1)
                #expect(answer.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=1 stale=0 bypassed=0")
                #expect(upstream.received.count == 1)
                #expect(upstream.received.first?.ifNoneMatch != nil)
            }
        }
        await upstream.stop()
    }

    @Test("a torn, garbled or other-version answer entry is not sent, and is removed: the walk answers")
    func aDamagedAnswerEntryIsIgnoredAndRemoved() async throws {
        let upstream = try ChangingUpstream()
        let damages: [(String, (inout [UInt8], Int) -> Void)] = [
            ("torn", { bytes, _ in bytes.removeLast(3) }),
            ("a head byte changed", { bytes, answerAt in bytes[answerAt + AnswerEntryFormat.prefixLength + 2] ^= 0x55 }),
            ("another version", { bytes, answerAt in bytes[answerAt + 7] = 99 }),
            ("garbage of the same size", { bytes, _ in bytes = [UInt8](repeating: 0x41, count: bytes.count) }),
        ]
        for (name, damage) in damages {
            try await Self.withDirectory { directory in
                try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
                let path = try #require(Self.answerFiles(in: directory).first, "\(name)")
                var bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
                let answerAt = try #require(bytes.withUnsafeBytes(CacheEntryFormat.headLength(of:)))
                damage(&bytes, answerAt)
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                // The damaged entry is found and removed (or replaced by the walk's answer, kept again).
                try await Self.run(upstream, directory: directory) { stack in
                    let uses = Self.storeUses(stack)
                    let answer = try await stack.get("/changing")
                    #expect(answer.text == Self.v1, "\(name)")
                    #expect(Self.storeUses(stack) > uses, "\(name)")
                    #expect(FileManager.default.contents(atPath: path).map(Array.init) != bytes, "\(name)")
                }
            }
        }
        await upstream.stop()
    }

    @Test("a FIFO put in an answer entry's place while the proxy runs is a miss at once: the walk answers (attack17 H1: the request waited for a writer forever, and ~20 such requests held the whole process)")
    func aFIFOInAnAnswerEntrysPlaceIsAMiss() async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            let path = try #require(Self.answerFiles(in: directory).first)
            try await Self.run(upstream, directory: directory) { stack in
                // After the start-up scan (which removes what is no entry), before the answer is in memory.
                try FileManager.default.removeItem(atPath: path)
                #expect(mkfifo(path, 0o600) == 0)
                let uses = Self.storeUses(stack)
                let answer = try await withThrowingTaskGroup(of: RawHTTPClient.Response?.self) { group in
                    group.addTask { try await stack.get("/changing") }
                    // A bound, not a wait for readiness: past it, the FIFO is opened for writing, which releases an
                    // `open` waiting on it, so that the test ends (failed) instead of hanging.
                    group.addTask {
                        try await Task.sleep(for: .seconds(20))
                        return nil
                    }
                    let first = try await group.next() ?? nil
                    if first == nil {
                        let writer = open(path, O_WRONLY | O_NONBLOCK)
                        if writer >= 0 { close(writer) }
                    }
                    group.cancelAll()
                    return first
                }
                #expect(answer?.status == 200)
                #expect(answer?.text == Self.v1)
                #expect(answer?.header("PageProxy-Cache") == Self.oneHit)
                #expect(Self.storeUses(stack) > uses)
            }
        }
        await upstream.stop()
    }

    @Test("an answer entry written in place while the memo sends from it: that answer is cut, then dropped and removed; the walk answers")
    func anAnswerFileWrittenInPlaceIsCutThenDropped() async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            let path = try #require(Self.answerFiles(in: directory).first)
            try await Self.run(upstream, directory: directory) { stack in
                // From the entry's file, now held open by the memo.
                let uses = Self.storeUses(stack)
                #expect(try await stack.get("/changing").text == Self.v1)
                #expect(Self.storeUses(stack) == uses)
                // Another program writes the body in place, same size (its times move).
                var bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
                bytes[bytes.count - 3] = UInt8(ascii: "9")
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.write(contentsOf: bytes)
                try handle.close()
                // The send finds the file changed: cut short of its length (the client sees no whole answer).
                let cut = try? await stack.get("/changing")
                #expect(cut?.text != Self.v1.replacingOccurrences(of: "1", with: "9"))
                await AnswerEntries.waitForWrites()
                // Neither the memo nor the directory keeps it: the walk answers, from the page.
                let walked = try await stack.get("/changing")
                #expect(walked.text == Self.v1)
                #expect(Self.storeUses(stack) > uses)
            }
        }
        await upstream.stop()
    }

    @Test("a route whose configuration changed between the runs does not find the answer kept under the old one")
    func aChangedRouteConfigWalks() async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            try await Self.run(upstream, directory: directory, route: { $0.maxPages = 7 }) { stack in
                let uses = Self.storeUses(stack)
                let answer = try await stack.get("/changing")
                #expect(answer.text == Self.v1)
                #expect(Self.storeUses(stack) > uses)
            }
        }
        await upstream.stop()
    }

    @Test("an answer to a query holding a credential (access_token, client_secret, sig) is memoized but never kept on disk: its window's Link would hold it as written (attack17 L1)")
    func anAnswerToAQueryWithACredentialIsNotKeptOnDisk() async throws {
        let upstream = try ChangingUpstream()
        for query in ["access_token=SEKRET1", "client_secret=SEKRET2", "sig=SEKRET3", "_offset=0&_limit=1&access_token=SEKRET4"] {
            try await Self.withDirectory { directory in
                try await Self.run(upstream, directory: directory) { stack in
                    let walked = try await stack.get("/changing?\(query)")
                    #expect(walked.status == 200, "\(query)")
                    upstream.resetLog()
                    let uses = Self.storeUses(stack)
                    // From the memo: no page looked up.
                    let repeated = try await stack.get("/changing?\(query)")
                    #expect(repeated.status == 200, "\(query)")
                    #expect(Self.storeUses(stack) == uses, "\(query)")
                }
                #expect(Self.answerFiles(in: directory).isEmpty, "\(query)")
                let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
                for file in files where file.hasSuffix(".entry") {
                    let text = String(decoding: FileManager.default.contents(atPath: "\(directory)/\(file)") ?? Data(), as: UTF8.self)
                    #expect(!text.contains("SEKRET"), "\(query)")
                }
            }
        }
        // Without one, kept as before.
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing?_offset=0&_limit=1") }
            #expect(Self.answerFiles(in: directory).count == 1)
        }
        await upstream.stop()
    }

    @Test("the memo off (memoBytes 0) writes no answer entry")
    func theMemoOffWritesNone() async throws {
        let upstream = try ChangingUpstream()
        try await Self.withDirectory { directory in
            try await Self.run(upstream, directory: directory, memoBytes: 0) { stack in
                _ = try await stack.get("/changing")
                _ = try await stack.get("/changing")
            }
            #expect(Self.answerFiles(in: directory).isEmpty)
            #expect(FileManager.default.enumerator(atPath: directory)?.contains { ($0 as? String)?.hasSuffix(".entry") == true } == true)
        }
        await upstream.stop()
    }

    /// review23 F7: after a restart, requests for one answer at once each read its entry (open, heads, every page's
    /// `fstatat`, a descriptor held), and the last one's answer replaced the others' in the memo.
    @Test("requests for one answer at once read its entry once: the others wait for that read and get the same answer")
    func concurrentReadsOfOneAnswerAreCollapsed() async throws {
        try await Self.withDirectory { directory in
            let store = DiskStore(directory: directory, maxBytes: 1 << 20)
            let route = RouteConfig.makeForTests(name: "items", upstream: "http://api.test/items", pagination: .pageNumber(PaginationScheme.PageNumber()))
            let plan = try RequestPlan(
                request: HTTPRequestHead(method: .get, target: "/items", headers: HTTPHeaders([("Host", "x")])), route: route, subpath: "",
                lookahead: LookaheadMemory())
            let key = try #require(plan.answerKey)
            let stamps = try [1, 2].map { page in
                let url = try #require(PageURL(string: "http://api.test/items?page=\(page)"))
                let entry = CacheEntry(status: .ok, headers: HTTPHeaders(), body: Array("[\(page)]".utf8), storedAt: Date(), freshUntil: .distantFuture)
                return try #require(store.write(entry, for: CacheKey(UpstreamRequest(url: url))))
            }
            let kept = AnswerEntry(
                etag: "\"e\"", freshUntil: .distantFuture, pages: 2, items: 2, truncated: false, upstreamPrivate: false, headers: HTTPHeaders(),
                manifest: [])
            #expect(AnswerEntries(store: store).write(kept, body: Array("[1,2]".utf8), stamps: stamps, madeAt: Date(), for: key))
            // Each read waits at the gate until the test opens it: reads not collapsed all start.
            let reads = Mutex(0)
            let gate = DispatchSemaphore(value: 0)
            let entries = AnswerEntries(store: store, beforeRead: {
                reads.withLock { $0 += 1 }
                gate.wait()
            })
            let persisted = PersistedMergedAnswers(entries: entries, memo: MergedAnswerMemo(maxBytes: 1 << 20, store: store))
            let requests = 4
            let answers = await withTaskGroup(of: MergedAnswerMemo.Answer?.self) { group in
                for _ in 0..<requests { group.addTask { await persisted.answer(for: plan) } }
                // Bounded by time: until every request reads, or waits for the one read.
                try? await poll("every request reads, or waits for the one read") {
                    if reads.withLock({ $0 }) == requests { return true }
                    return await persisted.reads.waiterCount(for: key) == requests
                }
                for _ in 0..<requests { gate.signal() }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reads.withLock { $0 } == 1)
            #expect(answers.count == requests && answers.allSatisfy { $0 != nil })
            #expect(Set(answers.compactMap { $0.map(ObjectIdentifier.init) }).count == 1)
        }
    }
}
