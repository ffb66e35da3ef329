import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Two PageProxy processes on one cache directory (replicas sharing a volume, issue 17), both under load, one of
/// them killed with SIGKILL and restarted, round after round: no entry file is ever torn, the entries on disk never
/// pass the bound both processes were given, neither disables its cache, and a restarted process serves right.
@Suite struct SharedCacheCrashTests {
    static let rounds = 4
    static let total = 3000
    static let maxBytes = 3_000_000

    @Test("two processes on one cache directory, SIGKILL after SIGKILL: no torn entry, the bound held")
    func twoProcessesUnderRepeatedKills() async throws {
        let (mock, mockServer, cache, config) = try CacheCrashTests.setUp()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var proxies = [try await ProxyProcess(config: config), try await ProxyProcess(config: config)]
        var peakBytes = 0
        for round in 1...Self.rounds {
            let victim = round % 2
            let before = mock.log.count
            let ports = proxies.map(\.port)
            // Both processes busy writing different pages (and some the same), past the bound many times over.
            let clients = (0..<4).map { client in
                Task {
                    for n in 0..<1000 {
                        let target = "/plain?mock_total=\(Self.total)&round=\(round)&n=\(n / 2)"
                        guard (try? await RawHTTPClient.connect(port: ports[client % 2]).request(target)) != nil else { return }
                    }
                }
            }
            try await poll("round \(round) has fetched pages", limit: .seconds(60)) { mock.log.count >= before + 120 }
            proxies[victim].signal(SIGKILL)
            _ = try await proxies[victim].waitForExit()
            // Freeze the survivor, so that the directory holds still while it is read.
            proxies[1 - victim].signal(SIGSTOP)
            try await proxies[1 - victim].waitUntilStopped()
            let files = CacheCrashTests.entryFiles(in: cache)
            var bytes = 0
            for path in files.entries {
                let name = URL(fileURLWithPath: path).lastPathComponent
                let key = try #require(CacheKey(hex: String(name.dropLast(CacheKey.entrySuffix.count))))
                let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                bytes += data.count
                #expect(throws: Never.self, "round \(round): \(name) is torn") { try CacheEntryFormat.decode(data, key: key) }
            }
            peakBytes = max(peakBytes, bytes)
            #expect(bytes <= Self.maxBytes, "round \(round): \(bytes) bytes of entries, over the bound")
            proxies[1 - victim].signal(SIGCONT)
            clients.forEach { $0.cancel() }
            for client in clients { await client.value }
            #expect(!proxies[1 - victim].logLines.contains { $0.contains("cache disabled") }, "the survivor kept its cache")
            proxies[victim] = try await ProxyProcess(config: config)
        }
        // Both serve whole answers from the shared directory after all that.
        for proxy in proxies {
            let again = try await RawHTTPClient.connect(port: proxy.port).request("/plain?mock_total=\(Self.total)&round=1&n=0")
            #expect(again.status == 200)
            #expect(again.body == MockDataset.mergedJSON(total: Self.total))
            #expect(!proxy.logLines.contains { $0.contains("cache disabled") })
            proxy.signal(SIGTERM)
            _ = try await proxy.waitForExit()
        }
        print("SharedCacheCrashTests: at most \(peakBytes) bytes of entries after a kill, bound \(Self.maxBytes)")
        await mockServer.stop(grace: .zero)
    }
}
