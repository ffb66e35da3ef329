import Dispatch
import Foundation
import Synchronization
import Testing

import PageProxyMock

@testable import PageProxyCore

/// attack15 M2: a cache over its bound when it opened was evicted before the store's init returned, so before the
/// proxy listened (97,772 victims: 5-7 minutes without `/healthz`), with no log line. It is evicted in the background,
/// told before and after; meanwhile a page it has no room for is not stored, and no write waits for the eviction.
@Suite struct StartEvictionTests {
    @Test("a store over its bound opens before its eviction runs, stores nothing over the bound meanwhile, and tells both ends")
    func aStoreOverItsBoundOpensFirst() async {
        let directory = TemporaryDirectory()
        let size = DiskStoreTests.fileSize(bodyBytes: 1000)
        do {
            let first = DiskStore(directory: directory.path, maxBytes: 1 << 20)
            for page in 1...20 { _ = first.write(DiskStoreTests.entry(page, bodyBytes: 1000), for: DiskStoreTests.key(page)) }
        }
        // Each round of victims waits for the test (at most 10 s: a store that evicted in its init waits that long, and
        // says so here).
        let gate = DispatchSemaphore(value: 0)
        let opened = Mutex<[Bool]>([])
        let events = Mutex<[CacheStartEviction]>([])
        let store = DiskStore(directory: directory.path, maxBytes: size * 5, onEvicting: { _ in
            opened.withLock { $0.append(gate.wait(timeout: .now() + 10) == .success) }
        }, onStartEviction: { event in events.withLock { $0.append(event) } })
        let found = store.totalBytes
        #expect(store.isEvictingAtStart)
        #expect(store.entryCount == 20)
        #expect(found >= 20 * size)
        #expect(events.withLock { $0 } == [.began(entries: 20, bytes: found, maxBytes: size * 5)])
        // No room: not stored, and not waiting for the eviction (which waits for the gate).
        #expect(store.write(DiskStoreTests.entry(99, bodyBytes: 1000), for: DiskStoreTests.key(99)) == nil)
        #expect(!store.contains(DiskStoreTests.key(99)))
        for _ in 0..<40 { gate.signal() }
        await store.waitForEvictions()
        #expect(opened.withLock { $0 }.allSatisfy { $0 } && !opened.withLock { $0 }.isEmpty)
        #expect(!store.isEvictingAtStart)
        #expect(store.totalBytes <= store.evictionTarget)
        let ended = events.withLock { $0 }.last
        let told = ended.map { if case .ended(let entries, let bytes, _) = $0 { (entries, bytes) } else { (-1, -1) } }
        #expect(told?.0 == 20 - store.entryCount)
        #expect(told?.1 == found - store.totalBytes)
        // Room again: stored.
        #expect(store.write(DiskStoreTests.entry(99, bodyBytes: 1000), for: DiskStoreTests.key(99)) != nil)
    }
}

/// fix27: a store's opening (its index, under both of the directory's locks) and its start-up eviction took the locks
/// without a bound: a peer holding one (frozen, or evicting for minutes itself) held `serve`'s start before it listened,
/// and every later eviction of this process queued behind it on `evictions`.
@Suite struct StartEvictionBoundTests {
    @Test("a peer holding the eviction lock: the store opens after the bound, its start-up eviction gives up and says so; a write then evicts for itself", .timeLimit(.minutes(2)))
    func theStartGivesUpOnABusyLock() async throws {
        let directory = TemporaryDirectory()
        let size = DiskStoreTests.fileSize(bodyBytes: 1000)
        do {
            let first = DiskStore(directory: directory.path, maxBytes: 1 << 20)
            for page in 1...20 { _ = first.write(DiskStoreTests.entry(page, bodyBytes: 1000), for: DiskStoreTests.key(page)) }
        }
        let peer = CacheLockBusyTests.Peer(holding: CacheDirectoryLedger.evictionLockName, in: directory.path)
        let events = Mutex<[CacheStartEviction]>([])
        let told = Mutex<[String]>([])
        // Opened on a thread of its own (it blocks up to the bound): 20 s without the store and its start-up eviction
        // told is the unbounded wait; then the peer lets go, so that the test ends, failed.
        let opened = Locked<DiskStore?>(nil)
        Thread {
            let store = DiskStore(
                directory: directory.path, maxBytes: size * 5, onStartEviction: { event in events.withLock { $0.append(event) } },
                onLockBusy: { lock in told.withLock { $0.append(lock) } })
            opened.withLock { $0 = store }
        }.start()
        let deadline = ContinuousClock.now + .seconds(20)
        while opened.value == nil || events.withLock({ $0.count }) < 2, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let seen = events.withLock { $0 }
        peer.release()
        while opened.value == nil { try? await Task.sleep(for: .milliseconds(10)) }
        let store = try #require(opened.value)
        try #require(seen.count == 2, "\(seen)")
        guard case .gaveUp = seen[1] else {
            Issue.record("not given up: \(seen[1])")
            return
        }
        #expect(told.withLock { $0 } == [directory.path + "/" + CacheDirectoryLedger.evictionLockName])
        #expect(!store.isEvictingAtStart)
        // Indexed without the locks: every entry found.
        #expect(store.entryCount == 20)
        // The peer gone: a write that finds no room evicts for itself, and is stored.
        #expect(await onOwnThread { store.write(DiskStoreTests.entry(99, bodyBytes: 1000), for: DiskStoreTests.key(99)) } != nil)
        await store.waitForEvictions()
        #expect(store.totalBytes <= store.maxBytes)
    }
}
