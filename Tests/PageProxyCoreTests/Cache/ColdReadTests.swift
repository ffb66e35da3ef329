import Foundation
import Glibc
import PageProxyMock
import Testing

@testable import PageProxyCore

/// Entries whose bytes are not in memory are read off the cooperative pool (issue 15): inline reads take only what
/// the kernel's page cache holds, and a cold entry is read on the cache's disk queue, still a hit.
@Suite(.enabled(if: PageCacheDrop.works(), "this file system keeps every file in memory (tmpfs): nothing is cold"))
struct ColdReadTests {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    let request = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!)
    let policy = CachePolicy(ttl: .seconds(60))

    /// A page stored through one source, then a restart: a new store over the same directory, with nothing of the
    /// entry in the process's memory, nor in the kernel's.
    func coldStart() async throws -> (CachingPageSource, DiskStore, CachingPageSourceTests.Upstream) {
        let upstream = CachingPageSourceTests.Upstream.withETag(Locked("\"1\""))
        let writer = CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20), clock: clock.clock)
        _ = try await writer.fetch(request, policy: policy, transport: upstream, timeout: .seconds(5), maxBodyBytes: 1 << 20)
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        PageCacheDrop.drop(store.path(for: CacheKey(request)))
        return (CachingPageSource(store: store, clock: clock.clock), store, upstream)
    }

    /// Runs `attempt` until it finds its file cold, at most 5 times; true when one did. A read that may not wait
    /// still starts the kernel's read of a missing page (`RWF_NOWAIT` is not `RWF_NOIO`), and on a fast disk that
    /// read can finish before the call looks again: the bytes come back, rightly, as if they had been in memory (a
    /// test failed so 1 run in ~10 under load). Then the file is warm, and the case is tried again from the start.
    /// Bounded: 40 tries, 20 ms apart (the full suite once found three files warm through 5 quick tries, each at the
    /// same moment: a busy disk's writeback keeps pages the kernel will not drop yet).
    func untilCold(_ attempt: () async throws -> Bool) async rethrows -> Bool {
        for _ in 0..<40 {
            if try await attempt() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func aReadThatMayNotWaitRefusesBytesOnlyTheDiskHas() async throws {
        let path = directory.path + "/file"
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        try CacheFileSystem.writeAtomically(bytes, to: path, temporary: path + ".tmp")
        let cold = await untilCold {
            PageCacheDrop.drop(path)
            do throws(CacheFileSystem.Failure) {
                #expect(try CacheFileSystem.read(path, wait: .pageCacheOnly)?.bytes == bytes)
                return false
            } catch {
                #expect(error.wouldBlock)
                return true
            }
        }
        #expect(cold, "a read that may not wait never refused a file whose bytes were dropped")
        #expect(try CacheFileSystem.read(path)?.bytes == bytes)
        // Read once, the bytes are in memory: now they come without waiting.
        #expect(try CacheFileSystem.read(path, wait: .pageCacheOnly)?.bytes == bytes)
    }

    @Test func aColdEntryIsNoInlineHitButFetchReadsItOffThePoolAsAHit() async throws {
        let cold = try await untilCold {
            let (source, _, upstream) = try await coldStart()
            let asked = upstream.requests.count
            let fetched = try await source.fetch(request, policy: policy, transport: upstream, timeout: .seconds(5), maxBodyBytes: 1 << 20)
            #expect(fetched.outcome == .hit)
            #expect(fetched.response.body == Array("[\"1\"]".utf8))
            #expect(upstream.requests.count == asked)
            guard source.coldReads == 1 else { return false }
            // Read once, it is warm: the next walk takes it in place.
            #expect(source.freshHit(request, policy: policy)?.outcome == .hit)
            #expect(source.coldReads == 1)
            return true
        }
        #expect(cold, "a cold entry was never read off the pool")
    }

    @Test func aColdEntryIsNoInPlaceHit() async throws {
        let cold = try await untilCold {
            let (source, store, _) = try await coldStart()
            // The walk's in-place read leaves it to `fetch`, which may wait (off the pool).
            guard source.freshHit(request, policy: policy) == nil else { return false }
            #expect(store.contains(CacheKey(request)))
            return true
        }
        #expect(cold, "a cold entry was always read in place")
    }

    @Test func aColdLookupKeepsTheEntryAndRefreshesItsTimeWhenReadOffThePool() async throws {
        let key = CacheKey(request)
        let entry = CacheEntry(status: .ok, headers: HTTPHeaders(), body: Array("[1]".utf8), storedAt: Date(timeIntervalSince1970: 0), freshUntil: Date(timeIntervalSince1970: 60))
        try #require(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(entry, for: key) != nil)
        let cold = await untilCold {
            let reopened = DiskStore(directory: directory.path, maxBytes: 1 << 20)
            let path = reopened.path(for: key)
            var old = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
            PageCacheDrop.drop(path)
            guard case .wouldBlock = reopened.lookupInline(key) else { return false }
            #expect(reopened.contains(key))
            #expect(reopened.read(key) == entry)
            // The first hit after a restart refreshes the file's time (the LRU order on disk), even when it was cold.
            #expect((CacheFileSystem.fileInfo(path)?.used ?? 0) > 1_000 * 1_000_000_000)
            return true
        }
        #expect(cold, "a cold entry was always read inline")
    }
}

/// Dropping a file's bytes from the kernel's page cache, to make a cache entry cold without a reboot.
enum PageCacheDrop {
    /// Asks the kernel to forget a file's cached bytes (written back first: dirty pages are not dropped), again while
    /// some are still resident: `POSIX_FADV_DONTNEED` skips pages still in another CPU's batch of newly added pages
    /// (a test then found a "cold" entry warm, 1 run in ~10 under load). Bounded: 100 tries.
    static func drop(_ path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        fsync(fd)
        for _ in 0..<100 {
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED))
            if !isResident(fd) { return }
            sched_yield()
        }
    }

    /// Whether any of the file's pages is in the page cache: `mincore` of a mapping, which looks without reading.
    static func isResident(_ fd: Int32) -> Bool {
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size > 0 else { return false }
        let length = Int(status.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else { return false }
        defer { munmap(mapping, length) }
        let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))
        var resident = [UInt8](repeating: 0, count: (length + pageBytes - 1) / pageBytes)
        guard mincore(mapping, length, &resident) == 0 else { return false }
        return resident.contains { $0 & 1 != 0 }
    }

    /// Whether a dropped file's bytes really leave memory here, so that a read without waiting refuses them.
    static func works() -> Bool {
        let directory = TemporaryDirectory()
        let path = directory.path + "/probe"
        guard (try? CacheFileSystem.writeAtomically(Array(repeating: 7, count: 64 << 10), to: path, temporary: path + ".tmp")) != nil else { return false }
        drop(path)
        do throws(CacheFileSystem.Failure) {
            _ = try CacheFileSystem.read(path, wait: .pageCacheOnly)
            return false
        } catch {
            return error.wouldBlock
        }
    }
}
