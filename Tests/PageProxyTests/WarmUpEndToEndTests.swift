import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// `cache.warmBytes`: a restarted proxy reads its newest pages into memory once it listens (issue 13, twenty-fifth
/// pass), so that its first walk reads no file, and answers the same bytes.
@Suite struct WarmUpEndToEndTests {
    static let target = "/github?mock_total=400"

    @Test func aWalkAfterAWarmedRestartReadsNoFile() async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]]) { stack, config in
            let first = try await stack.get(Self.target)
            #expect(first.status == 200)
            var warmed = config
            warmed.cache.warmBytes = 64 << 20
            // A second process over the same directory: a restart, as far as its cache knows.
            let restarted = try PageProxyApp.start(config: warmed, logger: Logger(level: .error))
            do {
                let store = try #require(restarted.pages.store)
                try await poll("the warm-up has run") { store.warmUpCount == 1 }
                #expect(store.memoryByteCount > 0)
                let merged = try await RawHTTPClient.connect(port: restarted.server.port).request(Self.target)
                #expect(merged.header("PageProxy-Cache") == "hits=40 misses=0 revalidated=0 stale=0 bypassed=0")
                #expect(merged.body == first.body)
                #expect(store.fileReadCount == 0, "every page was in memory")
                await restarted.pages.waitForReadAhead()
                #expect(store.readAheadAskedCount == 0, "a walk through entries in memory reads nothing ahead")
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }

    /// review25's MEDIUM: a config file with `sendFromFiles` and no `warmBytes` warms nothing, so its pages are sent
    /// from their files after a restart, as README says, not from copies the warm-up kept.
    @Test func aConfigFileSendingFromFilesWarmsNothingByDefault() async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]], sendsFromFiles: true) { stack, config in
            let first = try await stack.get(Self.target)
            #expect(first.status == 200)
            let document = ConfigFixture.document(
                top: #""cache": {"directory": "\#(config.cache.directory)", "maxBytes": 67108864, "memoBytes": 0, "sendFromFiles": true}"#)
            var restartedConfig = config
            restartedConfig.cache = try ConfigFixture.parse(document).cache
            #expect(restartedConfig.cache.sendsFromFiles)
            let restarted = try PageProxyApp.start(config: restartedConfig, logger: Logger(level: .error))
            do {
                let store = try #require(restarted.pages.store)
                #expect(store.warmUpStartedCount == 0, "no warm-up was started")
                let merged = try await RawHTTPClient.connect(port: restarted.server.port).request(Self.target)
                #expect(merged.header("PageProxy-Cache") == "hits=40 misses=0 revalidated=0 stale=0 bypassed=0")
                #expect(merged.body == first.body)
                #expect(store.fileReadCount > 0, "the pages were read from their files")
                #expect(store.memoryByteCount == 0, "no page kept in memory")
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }

    @Test func aConfigWithoutWarmBytesWarmsNothing() async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]]) { stack, config in
            #expect(try await stack.get(Self.target).status == 200)
            #expect(config.cache.warmBytes == 0)
            let restarted = try PageProxyApp.start(config: config, logger: Logger(level: .error))
            let store = restarted.pages.store
            #expect(store?.warmUpStartedCount == 0, "no warm-up was started")
            #expect(store?.memoryByteCount == 0, "nothing read before a request asks")
            let merged = try await RawHTTPClient.connect(port: restarted.server.port).request(Self.target)
            #expect(merged.status == 200)
            #expect(store?.warmUpCount == 0)
            await restarted.stop(grace: .seconds(5))
        }
    }
}
