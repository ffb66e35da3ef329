import Foundation
import Glibc
import Synchronization
import Testing

import PageProxyMock
@testable import PageProxyCore

/// attack17 M3: a process that holds a lock of the shared cache directory and does not let go (frozen by `docker
/// pause`, a debugger, a hung volume) held every write of every other process, and with it every cold walk, until the
/// request's deadline, then a 504 that blamed the upstream. A write waits for a lock a bounded time
/// (`CacheDirectoryLedger.busyWait`), then gives up: the page is not stored, the write counted as `lock_busy`, and
/// told once.
@Suite struct CacheLockBusyTests {
    /// Holds `name` (a lock file of `directory`) as another process would: an open file description of its own, which
    /// `flock` excludes the store's from.
    final class Peer: Sendable {
        let descriptor: Int32

        init(holding name: String, in directory: String) {
            descriptor = open(directory + "/" + name, O_RDWR | O_CLOEXEC)
            #expect(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
        }

        func release() { _ = flock(descriptor, LOCK_UN) }

        deinit { close(descriptor) }
    }

    /// `write` on a thread of its own, waited for at most 20 s; past that, `peer` lets go of its lock (so that the
    /// test ends, failed, instead of leaving the thread blocked) and the write's result is still returned.
    static func write(_ page: Int, to store: DiskStore, while peer: Peer) async -> (answered: Bool, stamp: PageStamp?) {
        let result = Locked<PageStamp??>(nil)
        Thread { result.withLock { $0 = .some(store.write(DiskStoreTests.entry(page), for: DiskStoreTests.key(page))) } }.start()
        let deadline = ContinuousClock.now + .seconds(20)
        while result.value == nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        let answered = result.value != nil
        if !answered { peer.release() }
        while result.value == nil { try? await Task.sleep(for: .milliseconds(5)) }
        return (answered, result.value ?? nil)
    }

    @Test("the directory's lock held by another process: the write gives up (lock_busy, told once), the next at once; once free, writes store again", .timeLimit(.minutes(2)))
    func aWriteGivesUpOnALockHeldElsewhere() async throws {
        let directory = TemporaryDirectory()
        let told = Mutex<[String]>([])
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20, onLockBusy: { lock in told.withLock { $0.append(lock) } })
        // Writes block on the disk and on flock: on threads of their own, off the cooperative pool (review25 L4).
        try #require(await onOwnThread { store.write(DiskStoreTests.entry(1), for: DiskStoreTests.key(1)) } != nil)
        let peer = Peer(holding: CacheDirectoryLedger.lockName, in: directory.path)
        // A new version of page 1: not stored, and the old one is no longer served (the upstream said otherwise).
        let first = await Self.write(1, to: store, while: peer)
        #expect(first.answered && first.stamp == nil)
        #expect(store.lookup(DiskStoreTests.key(1)) == nil)
        #expect(store.failedWrites == [.lockBusy: 1])
        #expect(store.isEnabled)
        // Within the quiet time: one try, no wait (the walk loses the bound once, not at every page).
        let second = await Self.write(2, to: store, while: peer)
        #expect(second.answered && second.stamp == nil)
        #expect(store.failedWrites == [.lockBusy: 2])
        #expect(told.withLock { $0 } == [directory.path + "/" + CacheDirectoryLedger.lockName])
        peer.release()
        #expect(await onOwnThread { store.write(DiskStoreTests.entry(3), for: DiskStoreTests.key(3)) } != nil)
        #expect(store.lookup(DiskStoreTests.key(3)) != nil)
        #expect(store.ledger?.isBusy == false)
    }

    @Test("the eviction lock held by another process while a write needs room: the write gives up (lock_busy)", .timeLimit(.minutes(2)))
    func aWriteThatNeedsRoomGivesUpOnAnEvictionLockHeldElsewhere() async throws {
        let directory = TemporaryDirectory()
        let (store, _) = DiskStoreTests.sixEntriesInABoundOfSeven(in: directory)
        let peer = Peer(holding: CacheDirectoryLedger.evictionLockName, in: directory.path)
        // The seventh fits (its eviction, queued, finds the lock held and leaves it to the holder); the eighth has no room.
        #expect(await onOwnThread { store.write(DiskStoreTests.entry(7), for: DiskStoreTests.key(7)) } != nil)
        await store.waitForEvictions()
        let eighth = await Self.write(8, to: store, while: peer)
        #expect(eighth.answered && eighth.stamp == nil)
        #expect(store.failedWrites == [.lockBusy: 1])
        peer.release()
    }

    /// review25 M1: the eviction a write runs when it finds no room, and a queued one, took the directory's lock
    /// without a bound; a peer frozen in its hold between the write's `place` and that eviction held the write's lane.
    @Test("the directory's lock held by another process while a write's or a queued eviction runs: it gives up instead of waiting", .timeLimit(.minutes(2)),
        arguments: [true, false])
    func anEvictionGivesUpOnADirectoryLockHeldElsewhere(_ forAWrite: Bool) async throws {
        let directory = TemporaryDirectory()
        let (store, _) = DiskStoreTests.sixEntriesInABoundOfSeven(in: directory)
        let peer = Peer(holding: CacheDirectoryLedger.lockName, in: directory.path)
        let done = Mutex(false)
        Thread {
            store.evict(making: forAWrite ? 1 << 20 : 0, sparing: [], wait: forAWrite, freeing: forAWrite ? 0 : 1, unlessBusy: forAWrite)
            done.withLock { $0 = true }
        }.start()
        let deadline = ContinuousClock.now + .seconds(20)
        while !done.withLock({ $0 }), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        let gaveUp = done.withLock { $0 }
        peer.release()
        #expect(gaveUp)
        while !done.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(store.ledger?.isBusy == true)
    }
}

extension CacheLockBusyTests {
    /// fix27: a write the volume had no space for reads the shared total (is the page larger than the volume could
    /// ever hold?) under the same bounded wait as its `place` (review25 M1); that read had no test.
    @Test("a full volume and the directory's lock held by another process: the write gives up (lock_busy) instead of waiting", .timeLimit(.minutes(2)))
    func aFullVolumeWriteGivesUpOnALockHeldElsewhere() async throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(
            directory: directory.path, maxBytes: 1 << 20, failWriting: { _ in ENOSPC },
            readVolume: { _ in CacheVolume(freeBytes: 64 << 20, freeInodes: 1000) })
        let peer = Peer(holding: CacheDirectoryLedger.lockName, in: directory.path)
        let write = await Self.write(1, to: store, while: peer)
        peer.release()
        #expect(write.answered && write.stamp == nil)
        #expect(store.failedWrites == [.lockBusy: 1])
        #expect(store.isEnabled)
    }
}
