import Foundation
import PageProxyMock
import Testing

@testable import PageProxyCore

/// Several processes on one cache directory (replicas sharing a volume, issue 17): two stores on one directory
/// stand for two processes, since `flock` excludes one open file from another even within a process.
@Suite struct SharedCacheDirectoryTests {
    typealias Make = DiskStoreTests

    /// The bytes of every entry file below `directory`.
    static func entryBytes(_ directory: TemporaryDirectory) -> Int {
        directory.files.filter { $0.hasSuffix(CacheKey.entrySuffix) }.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: directory.path + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    @Test func aStartingStoreLeavesALiveStoresTemporariesAndRemovesTheDeadOnes() throws {
        let directory = TemporaryDirectory()
        let running = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let instance = try #require(running.instance)
        let key = Make.key(1)
        try FileManager.default.createDirectory(atPath: "\(directory.path)/\(key.directoryName)", withIntermediateDirectories: true)
        // Mid-write: the running store's temporary, and one of a process that is gone (old-style name too).
        let live = "\(key.directoryName)/\(key.hex).tmp-\(instance)-7"
        let dead = ["\(key.directoryName)/\(key.hex).tmp-0123456789abcdef-1", "\(key.directoryName)/\(key.hex).tmp-99999-1"]
        for name in [live] + dead { try Data("half".utf8).write(to: URL(fileURLWithPath: directory.path + "/" + name)) }
        let starting = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(starting.isEnabled)
        #expect(directory.files == [live])
        #expect(running.isEnabled)
    }

    @Test("a start removes the instance files no process holds (a kill -9 leaves its own) and keeps a live store's")
    func aStartRemovesDeadInstanceFiles() throws {
        let directory = TemporaryDirectory()
        let running = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let live = CacheDirectoryLedger.instancePrefix + (try #require(running.instance))
        // Files of processes that are gone: nobody holds their lock.
        let dead = ["0123456789abcdef", "fedcba9876543210"].map { CacheDirectoryLedger.instancePrefix + $0 }
        for name in dead { try Data().write(to: URL(fileURLWithPath: directory.path + "/" + name)) }
        let instanceFiles = {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(CacheDirectoryLedger.instancePrefix) }
        }
        #expect(Set(try instanceFiles()) == Set(dead + [live]))
        let starting = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let started = CacheDirectoryLedger.instancePrefix + (try #require(starting.instance))
        #expect(Set(try instanceFiles()) == [live, started])
        #expect(running.isEnabled && starting.isEnabled)
    }

    @Test func twoStoresKeepOneBoundBetweenThem() {
        let directory = TemporaryDirectory()
        let size = Make.fileSize(bodyBytes: 1000)
        let bound = size * 10
        let first = DiskStore(directory: directory.path, maxBytes: bound)
        let second = DiskStore(directory: directory.path, maxBytes: bound)
        var peak = 0
        for page in 1...40 {
            (page.isMultiple(of: 2) ? first : second).write(Make.entry(page, bodyBytes: 1000), for: Make.key(page))
            peak = max(peak, Self.entryBytes(directory))
        }
        // Each alone would have kept up to the bound: together they never passed it.
        #expect(peak <= bound)
        #expect(peak > bound / 2)
        #expect(first.isEnabled && second.isEnabled)
    }

    /// The shared total as the lock file holds it.
    static func sharedTotal(_ directory: TemporaryDirectory) -> Int? {
        (try? String(contentsOfFile: directory.path + "/" + CacheDirectoryLedger.lockName, encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    @Test("while one store evicts, the other writes what fits without waiting, starts no second eviction, and the total never reads low")
    func anotherStoreWritesWhileOneEvicts() async throws {
        let directory = TemporaryDirectory()
        let size = Make.fileSize(bodyBytes: 1000)
        let bound = size * 7 + 300
        let chosen = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let evictions = Locked<[String]>([])
        let evicting = DiskStore(directory: directory.path, maxBytes: bound) { _ in } onEvicting: { _ in
            evictions.withLock { $0.append("first") }
            chosen.signal()
            _ = resume.wait(timeout: .now() + .seconds(90))
        }
        let other = DiskStore(directory: directory.path, maxBytes: bound) { _ in } onEvicting: { _ in
            evictions.withLock { $0.append("second") }
        }
        for page in 1...6 { evicting.write(Make.entry(page, bodyBytes: 1000), for: Make.key(page)) }
        let written = DispatchSemaphore(value: 0)
        // A thread of its own: the write blocks in the eviction it starts until the test resumes it.
        Thread.detachNewThread {
            evicting.write(Make.entry(7, bodyBytes: 1000), for: Make.key(7))
            written.signal()
        }
        #expect(await chosen.isSignalled(within: .seconds(30)))
        // Held between choosing its victims and removing them: had the process been killed here, the shared total
        // would be too high (it still counts the victims), never too low.
        #expect(try #require(Self.sharedTotal(directory)) >= Self.entryBytes(directory))
        // The other process's write fits in the room left: it is stored now, past 95 % of the bound, and does not
        // evict (the eviction lock is taken), so the victims are not picked twice.
        #expect(await Self.finishesWhileHeld { other.write(Make.entry(9, bodyBytes: 1), for: Make.key(9)) != nil } == true)
        #expect(evictions.value == ["first"])
        #expect(Self.entryBytes(directory) <= bound)
        #expect(try #require(Self.sharedTotal(directory)) >= Self.entryBytes(directory))
        resume.signal()
        #expect(await written.isSignalled(within: .seconds(30)))
        await evicting.waitForEvictions()
        await other.waitForEvictions()
        // Once the eviction is over, the total is exact again.
        #expect(Self.sharedTotal(directory) == Self.entryBytes(directory))
        #expect(Self.entryBytes(directory) <= evicting.evictionTarget + Make.fileSize(bodyBytes: 1))
        #expect(other.read(Make.key(7)) == Make.entry(7, bodyBytes: 1000))
        #expect(evicting.read(Make.key(9)) == Make.entry(9, bodyBytes: 1))
    }

    @Test("a total left far too high by killed processes is corrected by the next eviction, not only by a start")
    func anEvictionCorrectsATotalLeftTooHigh() async throws {
        let directory = TemporaryDirectory()
        let size = Make.fileSize(bodyBytes: 1000)
        let store = DiskStore(directory: directory.path, maxBytes: size * 10)
        for page in 1...3 { store.write(Make.entry(page, bodyBytes: 1000), for: Make.key(page)) }
        // As if processes were killed between counting writes and renaming them, or mid-eviction: far over the bound.
        try Data("99999999\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/" + CacheDirectoryLedger.lockName))
        // The next write finds no room, evicts, and that eviction finds the total far above the files: it rescans
        // under both locks instead of evicting everything, and the write is stored.
        #expect(store.write(Make.entry(4, bodyBytes: 1000), for: Make.key(4)) != nil)
        await store.waitForEvictions()
        #expect(Self.sharedTotal(directory) == size * 4)
        #expect(Self.entryBytes(directory) == size * 4)
        for page in 1...4 { #expect(store.contains(Make.key(page))) }
    }

    /// Runs `body` on a thread of its own while the test holds an eviction: its result, or nil when it did not finish
    /// within a bound far shorter than the hold (it waited for the eviction). A bound on a wait, not a measure of speed.
    /// Neither the caller's thread (one of the cooperative pool's) nor one of Dispatch's global queue, which may have
    /// none free while writes are held.
    static func finishesWhileHeld<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            result.withLock { $0 = body() }
            done.signal()
        }
        guard await done.isSignalled(within: .seconds(30)) else { return nil }
        return result.value
    }

    @Test func eachStoreReadsWhatTheOtherWrote() {
        let directory = TemporaryDirectory()
        let writer = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let reader = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        writer.write(Make.entry(1), for: Make.key(1))
        #expect(reader.read(Make.key(1)) == Make.entry(1))
        // An entry the other removed (or evicted) before this one read it is a miss, never an error.
        writer.write(Make.entry(2), for: Make.key(2))
        writer.remove(Make.key(2))
        #expect(reader.read(Make.key(2)) == nil)
        #expect(reader.isEnabled)
    }

    @Test("a store may hold an entry it indexed or another store wrote, and none that was never written or was removed")
    func mayHoldSeesTheIndexAndTheOtherStoresFiles() {
        let directory = TemporaryDirectory()
        let first = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let second = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(!first.mayHold(Make.key(1)))
        second.write(Make.entry(1), for: Make.key(1))
        #expect(second.mayHold(Make.key(1)))
        #expect(first.mayHold(Make.key(1)))
        // The removal by the store that never indexed it still takes the other's file (and its bytes) away.
        first.remove(Make.key(1))
        #expect(!first.mayHold(Make.key(1)))
        #expect(second.read(Make.key(1)) == nil)
        #expect(Self.sharedTotal(directory) == 0)
    }

    @Test func theSharedTotalIsRebuiltFromTheFilesAtStart() throws {
        let directory = TemporaryDirectory()
        let size = Make.fileSize(bodyBytes: 1000)
        do {
            let store = DiskStore(directory: directory.path, maxBytes: size * 10)
            for page in 1...5 { store.write(Make.entry(page, bodyBytes: 1000), for: Make.key(page)) }
        }
        // A process killed between counting a write and renaming it leaves the total too high; a start corrects it.
        try Data("99999999\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/" + CacheDirectoryLedger.lockName))
        let reopened = DiskStore(directory: directory.path, maxBytes: size * 10)
        #expect(reopened.entryCount == 5)
        let total = try String(contentsOfFile: directory.path + "/" + CacheDirectoryLedger.lockName, encoding: .utf8)
        #expect(total == "\(size * 5)\n")
    }
}
