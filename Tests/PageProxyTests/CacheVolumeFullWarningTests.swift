import Foundation
import Glibc
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// attack12 U3: a cache volume smaller than the working set logged `cache volume full` about once every 70 page
/// writes (a write succeeds between two evictions, and each success ended the "episode"). Now at most one line a
/// minute, each with the evictions since the last one. The store's writes fail with ENOSPC on demand (`failWriting`);
/// time is the test's (`AdvancingClock`).
@Suite struct CacheVolumeFullWarningTests {
    @Test func atMostOneLineAMinuteWithTheEvictionsSince() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-volfull-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = Mutex<[String]>([])
        let logger = Logger(level: .warning) { line in lines.withLock { $0.append(line) } }
        let time = AdvancingClock()
        let full = Mutex(false)
        let store = DiskStore(
            directory: directory, maxBytes: 1 << 20, onVolumeFull: PageProxyApp.volumeFullWarning(logger: logger, clock: time.clock),
            failWriting: { _ in full.withLock { failing in failing ? { failing = false; return ENOSPC }() : nil } })
        var page = 0
        /// One episode: a write finds the volume full (then evicts and succeeds), then a write succeeds.
        func episode() {
            full.withLock { $0 = true }
            for _ in 0..<2 {
                page += 1
                store.write(Self.entry(page), for: Self.key(page))
            }
        }
        func warnings() -> [String] { lines.withLock { $0 }.filter { $0.contains("cache volume full") } }

        episode()
        #expect(warnings().count == 1)
        #expect(warnings().last?.contains(#""evictions":1"#) == true, "\(warnings())")
        #expect(warnings().last?.contains("No space left on device") == true)
        for _ in 0..<56 {
            time.advance(by: .milliseconds(500))
            episode()
        }
        // 56 more episodes in 28 s (e3c9ff0: 57 lines): none told yet.
        #expect(warnings().count == 1, "\(warnings())")
        #expect(store.writesWithoutSpace == 57)
        time.advance(by: .seconds(33))
        episode()
        // A minute after the first line: one line for the 57 held back and this one.
        #expect(warnings().count == 2, "\(warnings())")
        #expect(warnings().last?.contains(#""evictions":57"#) == true, "\(warnings())")
        time.advance(by: .seconds(59))
        episode()
        #expect(warnings().count == 2)
        time.advance(by: .seconds(1))
        episode()
        #expect(warnings().count == 3)
        #expect(warnings().last?.contains(#""evictions":2"#) == true, "\(warnings())")
    }

    private static func key(_ page: Int) -> CacheKey {
        CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\(page)")!))
    }

    private static func entry(_ page: Int) -> CacheEntry {
        CacheEntry(
            status: .ok, headers: HTTPHeaders([("ETag", "\"\(page)\"")]), body: [UInt8](repeating: UInt8(ascii: "x"), count: 100),
            storedAt: Date(timeIntervalSince1970: 1_000), freshUntil: Date(timeIntervalSince1970: 2_000))
    }
}
