import Foundation
import Synchronization
import Testing

@testable import PageProxy

extension TestStack {
    /// Runs `body` with a stack on `routes` whose cache is in a directory of its own (no memo; merged read-backs sent
    /// from the entry files with `sendsFromFiles`), handing it the stack's
    /// config: a second `PageProxyApp` started with it is a restart, as far as its cache knows. The directory is
    /// removed after. Its routes keep their pages fresh for a day (`Route.freshForADay`, unless a route sets its own
    /// `ttl`): a restarted walk expects the first walk's pages as they were stored, however long a loaded machine takes.
    static func runWithOwnCacheDirectory(
        routes: [Route], sendsFromFiles: Bool = false, _ body: (TestStack, _ config: Config) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-restart-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = Mutex<Config?>(nil)
        try await TestStack.run(routes: routes.map(\.freshForADay)) { (settings: inout Config) in
            settings.cache = CacheConfig(directory: directory, maxBytes: 64 << 20, memoBytes: 0, sendsFromFiles: sendsFromFiles)
            config.withLock { $0 = settings }
        } _: { stack in
            try await body(stack, try #require(config.withLock { $0 }))
        }
    }
}
