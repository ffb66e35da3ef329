import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 13, eighth pass: after a restart, a merged answer's pages are sent from their entry files: the
/// same bytes, `Content-Length` and `ETag` as before the restart, and every file held for it is closed once the answer
/// is sent, fails mid-walk, or its client leaves.
@Suite struct FileSentAnswerTests {
    /// The descriptors this process holds open on files under `directory`: the entry files held for sending, and each
    /// store's ledger.
    static func openFiles(under directory: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? "").hasPrefix(directory + "/")
        }.count
    }

    /// Runs `body` with a stack whose cache is in a directory of its own, and a second process over that directory (a
    /// restart, as far as its cache knows) started by the function it is handed.
    private static func withRestart(
        _ body: (TestStack, String, () throws -> PageProxyApp) async throws -> Void
    ) async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]], sendsFromFiles: true) { stack, config in
            try await body(stack, config.cache.directory) {
                try PageProxyApp.start(config: config, logger: Logger(level: .error))
            }
        }
    }

    @Test("a merged answer after a restart is the answer before it, byte for byte (its HEAD too), and its files are closed after")
    func theAnswerFromTheFilesIsTheSame() async throws {
        try await Self.withRestart { stack, directory, restart in
            let target = "/github?mock_total=4000"
            let before = try await stack.get(target)
            #expect(before.status == 200)
            let restarted = try restart()
            // The two stores' ledgers.
            let ledgers = Self.openFiles(under: directory)
            do {
                // A HEAD answer of pages held in their files states the GET's length and sends no body.
                let head = try await RawHTTPClient.connect(port: restarted.server.port).request(target, method: "HEAD")
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                #expect(head.header("Content-Length") == String(before.body.count))
                let after = try await RawHTTPClient.connect(port: restarted.server.port).request(target)
                #expect(after.status == 200)
                #expect(after.body == before.body)
                #expect(after.header("Content-Length") == String(before.body.count))
                #expect(after.header("ETag") == before.header("ETag"))
                #expect(after.header("PageProxy-Cache") == "hits=400 misses=0 revalidated=0 stale=0 bypassed=0")
                // The first hits (the HEAD's) kept no copies; the second ones did: the third answer is from memory.
                let store = try #require(restarted.pages.store)
                let reads = store.fileReadCount
                let again = try await RawHTTPClient.connect(port: restarted.server.port).request(target)
                #expect(again.body == before.body)
                #expect(store.fileReadCount == reads)
                // Left: the entries read ahead that no lookup took (at most `DiskStore.readAheadLimit`) hold theirs.
                await restarted.pages.waitForReadAhead()
                try await poll("the entry files are closed") { Self.openFiles(under: directory) == ledgers + store.readAheadCount }
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }

    @Test("a client that leaves mid-send, and a walk that fails past pages read from their files, close every file")
    func filesAreClosedWhenTheAnswerEndsEarly() async throws {
        try await Self.withRestart { stack, directory, restart in
            let target = "/github?mock_total=4000"
            let failing = "/github?mock_total=4000&mock_fault=status500@30"
            #expect(try await stack.get(target).status == 200)
            // Pages 1…29 are stored; page 30 fails every time.
            #expect(try await stack.get(failing).status != 200)
            let restarted = try restart()
            let ledgers = Self.openFiles(under: directory)
            let store = try #require(restarted.pages.store)
            func closed() async -> Bool {
                await restarted.pages.waitForReadAhead()
                return Self.openFiles(under: directory) == ledgers + store.readAheadCount
            }
            do {
                // A client that reads nothing: the answer waits on its full window, files open, until it leaves.
                let client = try await RawHTTPClient.connect(port: restarted.server.port, receiveBufferBytes: 4096)
                try await client.send(RawHTTPClient.requestText(target))
                try await poll("the answer is being sent from its files") { Self.openFiles(under: directory) > ledgers + 64 }
                client.socket.close()
                try await poll("the entry files are closed", closed)
                let failed = try await RawHTTPClient.connect(port: restarted.server.port).request(failing)
                #expect(failed.status == 502)
                try await poll("the entry files are closed", closed)
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }
}
