import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

#if canImport(Glibc)
import Glibc
#endif

/// DESIGN.md "Outputs": a merged answer larger than memory's share waits on disk, is sent with `Content-Length`,
/// and past the route's cap (or on a full disk) is an honest error that points at NDJSON. Serialized: each test
/// moves megabytes through a debug build, and on a 2-core machine running them side by side starves the rest of
/// the run.
@Suite(.serialized) struct MergedSpoolTests {
    /// GitHub-style pages of 100 items (about 21 KB each), so that 10,000 items are about 2.1 MB in 100 pages; fresh
    /// for a day (`Route.freshForADay`): a repeat expects the memo's hits, however long a loaded machine takes.
    static func routes(maxMergedBytes: Int = 1 << 30) -> [TestStack.Route] {
        var scheme = PaginationScheme.LinkHeader()
        scheme.pageSize = 100
        return [
            TestStack.Route(name: "big", mockPath: "/github/items", scheme: .linkHeader(scheme)) { route in
                route.maxMergedBytes = maxMergedBytes
            }.freshForADay
        ]
    }

    @Test("a spooled answer is memoized within the memo's bound: a repeat opens no spool file, a page refreshed ends it")
    func aSpooledAnswerIsMemoized() async throws {
        let spool = try SpoolDirectory()
        defer { spool.remove() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let target = "/big?mock_total=1000"
        try await TestStack.run(
            routes: Self.routes(), configure: { $0.cache = CacheConfig(directory: cache, maxBytes: 64 << 20) },
            spool: spool.spool(memoryBytes: 64 << 10)
        ) { stack in
            // About 210 KB: past the 64 KiB threshold, within the memo's bound (an eighth of 64 MiB, half of that).
            let first = try await stack.get(target)
            #expect(first.body == MockDataset.mergedJSON(total: 1000))
            #expect(spool.openedCount == 1)
            stack.mock.log.reset()
            let repeated = try await stack.get(target)
            #expect(repeated.body == first.body)
            #expect(repeated.header("ETag") == first.header("ETag"))
            #expect(repeated.header("PageProxy-Cache") == "hits=10 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(spool.openedCount == 1, "the repeat came from the memo, not from a walk")
            #expect(stack.mock.log.count == 0)
            // Pages revalidated by a forced NDJSON walk are new versions: the next merged answer walks. It reads their
            // files again (a written entry is not kept in memory), and sends them from there: nothing is held in memory,
            // so it need not spool (issue 13, eighth pass), unless the process's budget of held files is spent.
            _ = try await stack.get(target + "&_format=ndjson&_fresh=1")
            let store = try #require(stack.app.pages.store)
            let reads = store.fileReadCount
            #expect(try await stack.get(target).body == first.body)
            #expect(store.fileReadCount > reads, "walked, not the memo")
            #expect((1...2).contains(spool.openedCount))
            try await poll("every spool file is closed") { spool.openDescriptors() == 0 }
        }
    }

    @Test("an answer past its allowance stays in memory while the process's budget lends it the bytes, else spools")
    func heldBudgetKeepsAnswersOffDisk() async throws {
        let spool = try SpoolDirectory()
        defer { spool.remove() }
        let budget = HeldBytesBudget(capacity: 512 << 10)
        try await TestStack.run(routes: Self.routes(), spool: spool.spool(memoryBytes: 64 << 10, heldBudget: budget)) { stack in
            // About 210 KB: past the 64 KiB allowance, within the 512 KiB budget.
            let held = try await stack.get("/big?mock_total=1000")
            #expect(held.body == MockDataset.mergedJSON(total: 1000))
            #expect(spool.openedCount == 0, "no spool file for an answer the budget could hold")
            // About 2.1 MB: past allowance and budget together.
            let spooled = try await stack.get("/big?mock_total=10000")
            #expect(spooled.body == MockDataset.mergedJSON(total: 10000))
            #expect(spool.openedCount == 1)
            #expect(budget.availableBytes == 512 << 10, "every borrowed byte given back")
        }
    }

    /// Issue 13, fifth pass: a held answer is sent as slices of its pages, more of them than one gathering write takes
    /// (1,024 parts: 600 pages are 1,201).
    @Test("an answer of 600 compact pages, held in memory, leaves whole over a socket in more than one gathering write")
    func aHeldAnswerOfManyPagesIsSentFromThem() async throws {
        let spool = try SpoolDirectory()
        defer { spool.remove() }
        let budget = HeldBytesBudget(capacity: 64 << 20)
        try await TestStack.run(routes: Self.routes(), spool: spool.spool(heldBudget: budget)) { stack in
            let response = try await stack.get("/big?mock_total=60000")
            #expect(response.body == MockDataset.mergedJSON(total: 60000))
            #expect(response.header("PageProxy-Pages") == "600")
            #expect(spool.openedCount == 0)
            #expect(budget.availableBytes == 64 << 20, "every borrowed byte given back")
        }
    }

    @Test("the server's own spool lends answers past 1 MiB a budget before they go to disk")
    func defaultSpoolHasABudget() {
        let spool = MergedSpool(directories: ["/tmp"])
        #expect(spool.memoryBytes == 1 << 20)
        #expect(spool.heldBudget?.capacity == MergedSpool.defaultHeldBytes)
        #expect(MergedSpool(directories: ["/tmp"], heldBytes: 0).heldBudget == nil)
    }

    @Test("a multi-MiB merged answer goes through a spool file and equals the ground truth")
    func bigMergedAnswerEqualsGroundTruth() async throws {
        let spool = try SpoolDirectory()
        defer { spool.remove() }
        try await TestStack.run(routes: Self.routes(), spool: spool.spool()) { stack in
            let response = try await stack.get("/big?mock_total=10000")
            let expected = MockDataset.mergedJSON(total: 10000)
            #expect(response.status == 200)
            #expect(expected.count > 2 << 20)
            #expect(response.body == expected)
            #expect(response.header("Content-Length") == String(expected.count))
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("PageProxy-Items") == "10000")
            #expect(spool.openedCount == 1, "the answer passed the in-memory threshold")
            try await poll("the spool file is closed") { spool.openDescriptors() == 0 }
            #expect(try spool.entries() == [])
        }
    }

    @Test("HEAD on a merged answer states its length and sends no body")
    func headOnMergedAnswer() async throws {
        let spool = try SpoolDirectory()
        defer { spool.remove() }
        try await TestStack.run(routes: Self.routes(), spool: spool.spool(memoryBytes: 64 << 10)) { stack in
            let client = try await stack.client()
            // 3 items stay in memory; 1,000 (about 210 KB) pass the 64 KiB threshold and are spooled.
            for total in [3, 1000] {
                let head = try await client.request("/big?mock_total=\(total)", method: "HEAD")
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                // The same connection answers the next request: had the HEAD carried a body, this would not parse.
                let get = try await client.request("/big?mock_total=\(total)")
                #expect(get.body == MockDataset.mergedJSON(total: total))
                #expect(head.header("Content-Length") == String(get.body.count))
                #expect(head.header("PageProxy-Items") == String(total))
            }
            #expect(spool.openedCount == 2, "the large answer was spooled for HEAD and for GET")
            try await poll("every spool file is closed") { spool.openDescriptors() == 0 }
        }
    }

    @Test("past maxMergedBytes the answer is a 507 that points at NDJSON, and no temporary file is left")
    func capGivesAnErrorWithTheNDJSONHint() async throws {
        let spool = try SpoolDirectory()
        defer { spool.remove() }
        // The cap is past the in-memory threshold, so the answer is on disk when it is refused.
        let spooled = spool.spool(memoryBytes: 64 << 10)
        try await TestStack.run(routes: Self.routes(maxMergedBytes: 128 << 10), spool: spooled) { stack in
            let response = try await stack.get("/big?mock_total=2000")
            #expect(response.status == 507)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.text.hasPrefix("{\"error\":{\"code\":\"merged_answer_too_large\""))
            #expect(response.text.contains("131072 bytes (maxMergedBytes)"))
            #expect(response.text.contains("_format=ndjson"))
            #expect(response.text.contains("Accept: application/x-ndjson"))
            #expect(response.text.contains("\"route\":\"big\""))
            #expect(spool.openedCount == 1)
            try await poll("the spool file is closed") { spool.openDescriptors() == 0 }
            #expect(try spool.entries() == [])
            // The walk stopped at the cap (about 128 KB of 420, 7 of 20 pages, plus the window) instead of
            // fetching every page.
            try await poll("no upstream request stays in flight") { stack.mock.log.inFlight == 0 }
            #expect(stack.mock.log.count < 15)
            // The streamed answer has no such cap.
            let streamed = try await stack.get("/big?mock_total=2000&_format=ndjson")
            #expect(streamed.status == 200)
            #expect(streamed.body == MockDataset.ndjson(total: 2000))
        }
    }

    @Test("a spool that cannot be written (disk full) is a JSON error, and the server carries on")
    func fullDiskIsAnHonestError() async throws {
        let fullDisk: SpooledBody.SpoolOpener = { () throws(SpoolError) -> SpoolFile in
            SpoolFile(descriptor: open("/dev/full", O_WRONLY | O_CLOEXEC))
        }
        try await TestStack.run(routes: Self.routes(), spool: MergedSpool(open: fullDisk, memoryBytes: 64 << 10)) { stack in
            let response = try await stack.get("/big?mock_total=1000")
            #expect(response.status == 507)
            #expect(response.text.hasPrefix("{\"error\":{\"code\":\"spool_failed\""))
            #expect(response.text.contains("No space left on device"))
            #expect(response.text.contains("_format=ndjson"))
            let small = try await stack.get("/big?mock_total=250")
            #expect(small.status == 200)
            #expect(small.body == MockDataset.mergedJSON(total: 250))
        }
    }
}

/// A private spool directory for one test, with a record of the spool files the proxy opened in it.
final class SpoolDirectory: Sendable {
    let path: String
    private let opened = Mutex(0)

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var openedCount: Int { opened.withLock { $0 } }

    /// Spool files in this directory, counted, for answers past `memoryBytes` (and past what `heldBudget` lends).
    func spool(memoryBytes: Int = 1 << 20, heldBudget: HeldBytesBudget? = nil) -> MergedSpool {
        MergedSpool(open: { [self] () throws(SpoolError) -> SpoolFile in
            opened.withLock { $0 += 1 }
            return try SpoolFile.create(in: path)
        }, memoryBytes: memoryBytes, heldBudget: heldBudget)
    }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
    }

    /// Descriptors of this process open on a file in the directory; a nameless spool file shows in
    /// `/proc/self/fd` as `<dir>/#<inode> (deleted)` until it is closed.
    func openDescriptors() -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.count { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"))?.hasPrefix(path + "/") == true
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
