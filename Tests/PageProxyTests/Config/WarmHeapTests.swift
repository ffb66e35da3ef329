import Foundation
import Testing

@testable import PageProxy

/// Issue 13, seventeenth pass: serve warms the malloc heap entries are read into, bounded (`WarmHeap`, CLinux.c
/// `pageproxy_warm_malloc_heap`).
@Suite struct WarmHeapTests {
    private func cache(maxBytes: Int) -> CacheConfig {
        CacheConfig(directory: "/tmp/heap17-unused", maxBytes: maxBytes)
    }

    @Test("the bytes warmed: the copies' bound (maxBytes, at most 64 MiB) capped by the limit; none with the cache off")
    func bytesAreBounded() {
        let limit = 15 << 20
        #expect(WarmHeap.bytes(for: cache(maxBytes: 4 << 20), limit: limit) == 4 << 20)
        #expect(WarmHeap.bytes(for: cache(maxBytes: 1 << 30), limit: limit) == limit)
        #expect(WarmHeap.bytes(for: cache(maxBytes: 1 << 30), limit: 100 << 20) == 64 << 20)
        #expect(WarmHeap.bytes(for: cache(maxBytes: 0), limit: limit) == 0)
        #expect(WarmHeap.bytes(for: cache(maxBytes: 1 << 30), limit: 0) == 0)
    }

    @Test("without the one arena (this test process never kept to it) nothing is warmed, whatever is asked")
    func nothingWarmedWithoutTheOneArena() {
        #expect(WarmHeap.warm(for: cache(maxBytes: 1 << 30)) == 0)
    }

    /// The anonymous memory resident in `pid` (`RssAnon`), in bytes.
    private func residentAnonymous(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")) * 1024
    }

    @Test("a serve process with a cache has ~15 MiB of heap warmed when it listens, never more; one without, none")
    func serveWarmsABoundedHeap() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heap17-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func config(maxBytes: Int) -> String {
            """
            {"listen":{"address":"127.0.0.1","port":0},"logLevel":"info",
             "cache":{"maxBytes":\(maxBytes),"directory":"\(directory)"},
             "routes":[{"name":"items","upstream":"http://127.0.0.1:9/items","pagination":{"scheme":"link-header"},"ttlSeconds":60}]}
            """
        }
        // Huge pages off: where they are taken, the thread heaps are kept and nothing is warmed (CLinux.c).
        let environment = ["PAGEPROXY_HUGE_PAGES": "off"]
        let cached = try await ProxyProcess(config: config(maxBytes: 1 << 30), environment: environment)
        let uncached = try await ProxyProcess(config: config(maxBytes: 0), environment: environment)
        let warmed = try residentAnonymous(cached.process.processIdentifier) - residentAnonymous(uncached.process.processIdentifier)
        #expect(warmed >= 12 << 20, "warmed \(warmed) bytes")
        #expect(warmed <= 18 << 20, "warmed \(warmed) bytes")
    }
}
