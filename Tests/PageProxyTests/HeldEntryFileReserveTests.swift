import PageProxyCore
import Testing

@testable import PageProxy

/// review24 P17: persisted merged answers hold entry files from the same budget as `cache.sendFromFiles` does, so the
/// descriptor line keeps that budget free whenever the memo is on (the default), not only with `sendFromFiles`.
@Suite struct HeldEntryFileReserveTests {
    /// The line `serve` draws under a soft limit of 1,024 (a budget of 256, a quarter of it) for a config's cache.
    private func line(cache: String) throws -> Int {
        let config = try ConfigFixture.parse(ConfigFixture.document(top: #""cache": \#(cache)"#))
        return DescriptorReserve.line(softLimit: 1024, heldEntryFiles: ServeCommand.heldEntryFileReserve(config.cache, budget: 256))
    }

    @Test("with the default cache (memo on, so answers held) the budget is kept free: 1,024 − 256 − 32, 368 connections")
    func theDefaultCacheReservesTheBudget() throws {
        let line = try line(cache: #"{"directory": "/tmp/fix24-unused"}"#)
        #expect(line == 1024 - 256 - DescriptorReserve.spare)
        #expect(DescriptorReserve.maxConnections(below: line, held: 0) == 368)
        #expect(try self.line(cache: #"{"directory": "/tmp/fix24-unused", "sendFromFiles": true}"#) == line)
        #expect(try self.line(cache: #"{"directory": "/tmp/fix24-unused", "memoBytes": 0, "sendFromFiles": true}"#) == line)
    }

    @Test("with nothing that holds entry files (memo off and no sendFromFiles, or no cache) only the spare: 496 connections")
    func nothingHeldReservesOnlyTheSpare() throws {
        for cache in [#"{"directory": "/tmp/fix24-unused", "memoBytes": 0}"#, #"{"maxBytes": 0}"#] {
            let line = try line(cache: cache)
            #expect(line == 1024 - DescriptorReserve.spare, "cache: \(cache)")
            #expect(DescriptorReserve.maxConnections(below: line, held: 0) == 496)
        }
    }
}
