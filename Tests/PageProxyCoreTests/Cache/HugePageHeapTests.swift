import CLinux
import Foundation
import PageProxyMock
import Synchronization
import Testing

@testable import PageProxyCore

/// The heap an entry's bytes are read into is advised huge pages (CLinux.c, `pageproxy_advise_huge_heap`; issue 13,
/// tenth pass): the first read-back after a restart faulted its 10 MB in 4 KiB at a time.
@Suite(.enabled(if: !SanitizedRun.isOn, "a sanitizer's malloc is not glibc's")) struct HugePageHeapTests {
    /// The kernel's transparent huge page mode (`always`, `madvise` or `never`), nil where it cannot be read.
    private static var hugePageMode: String? {
        guard let text = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
            let start = text.firstIndex(of: "["), let end = text.firstIndex(of: "]"), start < end
        else { return nil }
        return String(text[text.index(after: start)..<end])
    }

    /// The mapping of this process that holds `address`: its name (empty when anonymous) and whether it is advised
    /// huge pages (`hg` among its `VmFlags`).
    private static func mapping(holding address: UInt) -> (name: String, advised: Bool)? {
        // Read to its end: a file of /proc states no size.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile() else { return nil }
        let smaps = String(decoding: data, as: UTF8.self)
        var current: (name: String, holds: Bool)?
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5, !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                let holds = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
                current = (fields.count > 5 ? String(fields[5]) : "", holds)
            } else if let current, current.holds, line.hasPrefix("VmFlags:") {
                return (current.name, fields.contains("hg"))
            }
        }
        return nil
    }

    /// Reads `path`'s tail on a thread of its own (its own malloc arena, while glibc has arenas to give) and returns
    /// the address its bytes were read into, kept alive until `body` is done with it.
    private static func tailAddress(readingOnNewThread path: String, _ body: (UInt) -> Void) async throws {
        final class Read: Sendable { let tail = Mutex<[UInt8]?>(nil) }
        let read = Read()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            read.tail.withLock { $0 = try? CacheFileSystem.read(path) { _ in 16 }?.tail }
            done.signal()
        }
        thread.start()
        #expect(await done.isSignalled(within: .seconds(30)))
        let tail = try #require(read.tail.withLock { $0 })
        tail.withUnsafeBytes { body(UInt(bitPattern: $0.baseAddress)) }
    }

    // Where the kernel never makes huge pages there is nothing to see; where it always does, no advice is needed.
    @Test("an entry's body read on a thread lands in a heap advised huge pages", .enabled(if: hugePageMode == "madvise"))
    func anEntryIsReadIntoAHeapAdvisedHugePages() async throws {
        // `on` (PAGEPROXY_HUGE_PAGES): this machine's `defrag` may well be `madvise`, where `auto` advises nothing.
        pageproxy_set_huge_pages(1)
        let directory = TemporaryDirectory()
        let path = directory.path + "/entry"
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 64 << 10))
        // A thread may share an arena (the main thread's brk heap, left alone) once glibc has made its most: a few
        // threads, until one reads into a heap of its own.
        var seen: [(name: String, advised: Bool)] = []
        for _ in 0..<8 {
            try await Self.tailAddress(readingOnNewThread: path) { address in
                if let mapping = Self.mapping(holding: address) { seen.append(mapping) }
            }
            if let last = seen.last, last.name.isEmpty { break }
        }
        let heap = try #require(seen.last { $0.name.isEmpty }, "no read landed in a thread's heap: \(seen)")
        #expect(heap.advised)
    }

    @Test("auto advises only where THP is madvise and no fault compacts in line (defrag defer or never)")
    func autoFollowsTheKernelsModes() {
        let defrags = ["always", "defer", "defer+madvise", "madvise", "never"]
        func allows(_ enabled: String, _ defrag: String) -> Bool {
            let line = { (modes: [String], chosen: String) in
                modes.map { $0 == chosen ? "[\($0)]" : $0 }.joined(separator: " ") + "\n"
            }
            return pageproxy_huge_pages_mode_allows(line(["always", "madvise", "never"], enabled), line(defrags, defrag)) == 1
        }
        #expect(defrags.filter { allows("madvise", $0) } == ["defer", "never"])
        #expect(defrags.allSatisfy { !allows("always", $0) && !allows("never", $0) })
        #expect(pageproxy_huge_pages_mode_allows("", "") == 0)
    }

    @Test("a block past the mmap threshold (a mapping of its own, not in a heap) is not advised; nor is no block")
    func aBlockOutsideAHeapIsLeftAlone() {
        var local = 0
        withUnsafeMutablePointer(to: &local) { pointer in
            #expect(pageproxy_advise_huge_heap(pointer, 64 << 20) == 0)
        }
        #expect(pageproxy_advise_huge_heap(nil, 16) == 0)
    }
}
