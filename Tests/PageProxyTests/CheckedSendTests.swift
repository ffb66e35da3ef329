import Foundation
import Glibc
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 13, thirteenth pass (a contract amendment, README "Sending from the entry files"): with `cache.sendFromFiles`
/// a merged answer's first walk after a restart reads each entry's head only, and each page's body is checked as it is
/// sent. A body corrupted on disk cuts that answer short of its `Content-Length` before any byte of that page, the
/// entry is removed, and the next answer fetches the page again; torn files and corrupt heads are misses as before.
@Suite struct CheckedSendTests {
    /// 100 items in pages of 10, and the empty eleventh page that ends the walk.
    static let target = "/plain?mock_total=100"

    /// The entry file under `directory` holding `needle` (an item's bytes: the page it is on).
    static func entryFile(holding needle: [UInt8], under directory: String) throws -> String {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".entry") } ?? []
        let found = files.map { "\(directory)/\($0)" }.filter { path in
            (FileManager.default.contents(atPath: path).map { Array($0).contains(subsequence: needle) }) ?? false
        }
        try #require(found.count == 1, "\(found.count) entry files hold the item")
        return found[0]
    }

    /// Changes one byte of `path` in place at the first byte of `needle` (the file's size unchanged).
    static func flip(_ path: String, at needle: [UInt8]) throws {
        var bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
        let at = try #require(bytes.firstIndex(ofSubsequence: needle))
        bytes[at] ^= 0x01
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(pwrite(fd, [bytes[at]], 1, off_t(at)) == 1)
    }

    private static func withRestart(_ body: (TestStack, String, () throws -> PageProxyApp) async throws -> Void) async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[0]], sendsFromFiles: true) { stack, config in
            try await body(stack, config.cache.directory) { try PageProxyApp.start(config: config, logger: Logger(level: .error)) }
        }
    }

    @Test("a page whose body was changed on disk cuts the answer before its bytes (pages before it whole, the connection closed short of Content-Length); the next answer is whole, that page fetched again")
    func aCorruptBodyCutsTheAnswer() async throws {
        try await Self.withRestart { stack, directory, restart in
            let before = try await stack.get(Self.target)
            #expect(before.status == 200)
            #expect(before.body.elementsEqual(MockDataset.mergedJSON(total: 100)))
            // Page 3 holds items 21…30 (ids); a byte inside item 25's name.
            let page3 = try Self.entryFile(holding: MockDataset.item(20), under: directory)
            try Self.flip(page3, at: Array("item-25".utf8))
            let restarted = try restart()
            do {
                let client = try await RawHTTPClient.connect(port: restarted.server.port)
                try await client.send(RawHTTPClient.requestText(Self.target))
                let raw = try await client.readUntilClose()
                let head = String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                #expect(head.hasPrefix("HTTP/1.1 200"))
                let length = try #require(head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
                #expect(length == before.body.count)
                let body = raw.bodyAfterHead
                // `[`, pages 1 and 2 (items 1…20) and the comma after them: not a byte of page 3.
                let pagesBefore = 1 + MockDataset.items(total: 20).reduce(0) { $0 + $1.count + 1 }
                #expect(body.count == pagesBefore, "cut at page 3: \(body.count) of \(length) bytes")
                #expect(body.elementsEqual(before.body.prefix(pagesBefore)), "pages 1 and 2 arrive whole")
                // The entry is removed (off the sender's thread), and the next answer fetches page 3 again.
                try await poll("page 3's entry is removed") { !FileManager.default.fileExists(atPath: page3) }
                stack.mock.log.reset()
                let after = try await RawHTTPClient.connect(port: restarted.server.port).request(Self.target)
                #expect(after.status == 200)
                #expect(after.body.elementsEqual(before.body), "the answer is whole and correct")
                #expect(after.header("ETag") == before.header("ETag"))
                #expect(stack.mock.log.count == 1)
                let cache = after.header("PageProxy-Cache") ?? ""
                #expect(cache.hasPrefix("hits=10 misses=1"), "\(cache)")
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }

    @Test("a truncated entry file and a corrupt head are still plain misses in that walk: a whole, correct 200")
    func tornFilesAndCorruptHeadsAreMisses() async throws {
        try await Self.withRestart { stack, directory, restart in
            let before = try await stack.get(Self.target)
            #expect(before.status == 200)
            let page3 = try Self.entryFile(holding: MockDataset.item(20), under: directory)
            let page5 = try Self.entryFile(holding: MockDataset.item(40), under: directory)
            let size = try #require(CacheFileSystem.fileInfo(page3)?.size)
            #expect(truncate(page3, off_t(size - 7)) == 0)
            // A byte of page 5's header (past the 28-byte prefix: its key's hex digits).
            let fd = open(page5, O_WRONLY)
            try #require(fd >= 0)
            #expect(pwrite(fd, "Z", 1, 40) == 1)
            close(fd)
            let restarted = try restart()
            do {
                stack.mock.log.reset()
                let after = try await RawHTTPClient.connect(port: restarted.server.port).request(Self.target)
                #expect(after.status == 200)
                #expect(after.body.elementsEqual(before.body), "the answer is whole and correct")
                #expect(after.header("Content-Length") == String(before.body.count))
                #expect(stack.mock.log.count == 2)
                let cache = after.header("PageProxy-Cache") ?? ""
                #expect(cache.hasPrefix("hits=9 misses=2"), "\(cache)")
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }
}

extension Array where Element == UInt8 {
    /// Where `needle` first starts, or nil.
    fileprivate func firstIndex(ofSubsequence needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, count >= needle.count else { return nil }
        return (0...(count - needle.count)).first { self[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
