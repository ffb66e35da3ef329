import CLinux
import Foundation
import Synchronization
import Testing

/// Malloc's arenas are made writable `M_TOP_PAD` ahead (CLinux.c; issue 13, seventh pass): a thread allocating a read-back's
/// entries grows its heap with no `mprotect` a page run.
@Suite struct MallocArenaPadTests {
    @Test("the pad is set before main, and a thread's arena heap is writable that far from its start")
    func aThreadsArenaIsWritablePadAhead() throws {
        #expect(pageproxy_malloc_top_pad() == 16 << 20)
        // A thread of its own: its allocations come from an arena (not the main thread's brk heap).
        let found = Mutex<(address: UInt, maps: String)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let pointer = malloc(1000)
            let address = UInt(bitPattern: pointer)
            free(pointer)
            found.withLock { $0 = (address, (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? "") }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let (address, maps) = try #require(found.withLock { $0 })
        // The mapping holding the allocation: `start-end perms …`, writable and at least the pad long.
        let mapping = maps.split(separator: "\n").lazy.compactMap { line -> (Range<UInt>, Substring)? in
            let fields = line.split(separator: " ", maxSplits: 2)
            let bounds = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            guard fields.count > 1, bounds.count == 2, bounds[0] < bounds[1] else { return nil }
            return (bounds[0]..<bounds[1], fields[1])
        }.first { $0.0.contains(address) }
        let (range, permissions) = try #require(mapping)
        #expect(permissions.hasPrefix("rw"))
        #expect(range.upperBound - range.lowerBound >= UInt(16 << 20))
    }
}
