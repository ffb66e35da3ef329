// The lock waits a memo hit's call into the page store would see on the epoll loop (issue 13, sixth pass): one thread
// calls `DiskStore.changeCount(ifCurrent:)` back to back (what a memo hit does when the store changed) while this
// thread makes the store evict over many records, or keep copies in memory past its 64 MiB bound; prints the calls'
// latency percentiles. It needs PageProxyCore's package API, so it is built as a target of a copy of the tree:
//   git archive <commit> | tar -x -C /tmp/tree && mkdir /tmp/tree/Sources/StallBench && cp bench/loop_stall_probe.swift /tmp/tree/Sources/StallBench/main.swift
//   add `.executableTarget(name: "StallBench", dependencies: ["PageProxyCore"]),` to /tmp/tree/Package.swift
//   (cd /tmp/tree && swift build -c release --product StallBench && .build/release/StallBench 60000)
// On a loaded machine the probe thread is also preempted (waits of tens to hundreds of ms): compare the two
// binaries run one after the other, and read the percentiles, not the maximum.
import Foundation
import Glibc
import PageProxyCore
import Synchronization

func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func key(_ n: Int) -> CacheKey { CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\(n)")!), memo: nil) }
func entry(_ bytes: Int) -> CacheEntry {
    CacheEntry(status: .ok, headers: HTTPHeaders([("ETag", "\"1\"")]), body: [UInt8](repeating: 120, count: bytes),
        storedAt: Date(), freshUntil: Date().addingTimeInterval(3600))
}

/// Runs `work` on this thread while another thread calls `probe` back to back; the probe's latencies (µs), and
/// those of the calls that began inside the windows `work` returns (start and end times, `now()`).
func probed(_ probe: @escaping @Sendable () -> Void, during work: () -> [(UInt64, UInt64)]) -> (all: [Double], inWindows: [Double]) {
    let stop = Atomic(false)
    let samples = Mutex<[(UInt64, Double)]>([])
    let thread = Thread {
        var local: [(UInt64, Double)] = []
        while !stop.load(ordering: .relaxed) {
            let start = now()
            probe()
            local.append((start, Double(now() - start) / 1000))
        }
        samples.withLock { $0 = local }
    }
    thread.start()
    let windows = work()
    stop.store(true, ordering: .relaxed)
    while samples.withLock({ $0.isEmpty }) { usleep(1000) }
    let all = samples.withLock { $0 }
    let inside = all.filter { sample in windows.contains { sample.0 >= $0.0 && sample.0 <= $0.1 } }.map(\.1)
    return (all.map(\.1), inside)
}

func report(_ name: String, _ samples: [Double]) {
    let s = samples.sorted()
    func p(_ f: Double) -> Double { s[min(s.count - 1, Int(f * Double(s.count)))] }
    let over = (s.filter { $0 > 1000 }.count, s.filter { $0 > 100 }.count)
    print(String(format: "%@: %d probes, p50 %.1f µs, p99.9 %.0f µs, p99.99 %.0f µs, max %.0f µs, > 100 µs: %d, > 1 ms: %d",
        name, s.count, p(0.5), p(0.999), p(0.9999), s.last ?? 0, over.1, over.0))
}

let arguments = CommandLine.arguments
let entries = arguments.count > 1 ? Int(arguments[1]) ?? 60_000 : 60_000
let root = "/tmp/stallbench-store-\(getpid())"

// 1. Evictions over `entries` small records.
do {
    let size = CacheEntryFormat.encode(entry(100), key: key(0)).count
    let store = DiskStore(directory: root + "-evict", maxBytes: size * entries * 100 / 94)
    for n in 1...entries { store.write(entry(100), for: key(n)) }
    let stamp = store.lookup(key(1))!.stamp
    var next = entries + 1
    let samples = probed({ _ = store.changeCount(ifCurrent: [stamp]) }) {
        // Writes until five evictions have run; each window is the write that queued one, until it has run.
        var windows: [(UInt64, UInt64)] = []
        while windows.count < 5 {
            let before = store.entryCount
            let start = now()
            store.write(entry(100), for: key(next))
            next += 1
            store.waitForEvictions()
            if store.entryCount < before { windows.append((start, now())) }
        }
        return windows
    }
    report("eviction, \(entries) records, all probes", samples.all)
    report("eviction, \(entries) records, probes begun during the five evictions", samples.inWindows)
}

// 2. Copies kept in memory past the 64 MiB bound: 128 MiB of 64 KB entries looked up three times in a cycle.
if arguments.count < 3 || arguments[2] != "evictions-only" {
    let store = DiskStore(directory: root + "-memory", maxBytes: 160 << 20)
    let count = (128 << 20) / (64 << 10)
    for n in 1...count { store.write(entry(64 << 10), for: key(n)) }
    let stamp = store.lookup(key(1))!.stamp
    let samples = probed({ _ = store.changeCount(ifCurrent: [stamp]) }) {
        for _ in 0..<3 { for n in 1...count { _ = store.lookup(key(n), keepsFirstRead: true) } }
        return []
    }
    report("in-memory copies past the bound, \(count) entries of 64 KB", samples.all)
}
_ = system("rm -rf \(root)-evict \(root)-memory")
