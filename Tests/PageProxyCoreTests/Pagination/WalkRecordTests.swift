import Synchronization
import Testing

@testable import PageProxyCore

/// The account of a walk: fetches, attempts, items taken, time on the upstream and in the cache, the critical path.
@Suite struct WalkRecordTests {
    private func url(_ page: Int) -> PageURL { PageURL(string: "http://api.test/items?page=\(page)")! }

    @Test func fetchesCarryTheirAttemptsAndTheItemsTaken() {
        let record = WalkRecord()
        let start = ContinuousClock.now
        record.attempted(url(1))
        record.attempted(url(1))
        record.fetched(number: 1, url: url(1), status: 200, outcome: .miss, bytes: 10, started: start)
        record.fetched(number: 2, url: url(2), status: 200, outcome: .hit, bytes: 12, started: start)
        record.failed(number: 3, url: url(3), error: "timed out", started: start)
        record.taken(number: 1, url: url(1), items: 4, pagesKnown: 3)
        let fetches = record.fetches.sorted { $0.number < $1.number }
        #expect(fetches.map(\.retries) == [1, 0, 0])
        #expect(fetches.map(\.items) == [4, nil, nil])
        #expect(fetches.map(\.outcome) == [.miss, .hit, nil])
        #expect(fetches[2].error == "timed out")
    }

    @Test("review9 G1: a long URL is kept cut to keptURLBytes, with its length; the fetch still takes its items and attempts")
    func aLongURLIsKeptCutWithItsLength() throws {
        let record = WalkRecord()
        let start = ContinuousClock.now
        let cursor = String(repeating: "c", count: 64 * 1024)
        let long = try #require(PageURL(string: "http://api.test/items?cursor=\(cursor)"))
        record.attempted(long)
        record.attempted(long)
        record.fetched(number: 1, url: long, status: 200, outcome: .miss, bytes: 10, started: start)
        record.fetched(number: 2, url: url(2), status: 200, outcome: .miss, bytes: 10, started: start)
        record.taken(number: 1, url: long, items: 7, pagesKnown: nil)
        record.taken(number: 2, url: url(2), items: 3, pagesKnown: nil)
        let fetches = record.fetches.sorted { $0.number < $1.number }
        #expect(fetches[0].url.utf8.count == WalkRecord.Fetch.keptURLBytes)
        #expect(long.redactedDescription.hasPrefix(fetches[0].url))
        #expect(fetches[0].urlBytes == long.redactedDescription.utf8.count)
        #expect(fetches[0].items == 7 && fetches[0].retries == 1)
        // An ordinary URL is kept whole, as before.
        #expect(fetches[1].url == url(2).redactedDescription && fetches[1].urlBytes == fetches[1].url.utf8.count)
        #expect(fetches[1].items == 3)
    }

    @Test func progressIsReportedForEachPageTaken() {
        let seen = Seen()
        let record = WalkRecord { seen.add($0) }
        record.setTotalItems(30)
        record.taken(number: 1, url: url(1), items: 10, pagesKnown: nil)
        record.taken(number: 2, url: url(2), items: 10, pagesKnown: 3)
        #expect(seen.all.map(\.pages) == [1, 2])
        #expect(seen.all.map(\.items) == [10, 20])
        #expect(seen.all.map(\.pagesKnown) == [nil, 3])
        #expect(seen.all.map(\.totalItems) == [30, 30])
    }

    @Test func theCriticalPathFollowsWhatEachFetchWaitedFor() {
        // Page 1 [0,10); pages 2 and 3 start at 10 and end at 14 and 30; page 4 starts at 14 (2 freed its place) and
        // ends at 20. The walk ends with page 3, which waited for page 1.
        let record = WalkRecord(began: .now)
        let fetches = [(1, 0, 10), (2, 10, 14), (3, 10, 30), (4, 14, 20)].map { number, start, end in
            WalkRecord.Fetch(
                number: number, url: url(number), status: 200, outcome: .miss, bytes: 0, attempts: 1, started: .milliseconds(start),
                finished: .milliseconds(end))
        }
        #expect(WalkRecord.criticalPath(of: fetches).map(\.number) == [1, 3])
        #expect(WalkRecord.union(fetches) == .milliseconds(30))
        #expect(WalkRecord.union([fetches[1], fetches[3]]) == .milliseconds(10))
        _ = record
    }

    @Test("the critical path by binary search is the one of the plain definition, ties to the first; a fetch of no time ends")
    func theCriticalPathMatchesItsDefinition() {
        // The definition, step by step over every fetch (quadratic: attack7 F1), for fetches that all take time.
        func plain(_ fetches: [WalkRecord.Fetch]) -> [Int] {
            guard var current = fetches.max(by: { $0.finished < $1.finished }) else { return [] }
            var path = [current.number]
            while let before = fetches.filter({ $0.finished <= current.started }).max(by: { $0.finished < $1.finished }) {
                path.append(before.number)
                current = before
            }
            return path.reversed()
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let count = Int.random(in: 1...40, using: &generator)
            // Coarse times, so that many fetches end at the same moment.
            let fetches = (1...count).map { number -> WalkRecord.Fetch in
                let start = Int.random(in: 0...20, using: &generator)
                return WalkRecord.Fetch(
                    number: number, url: url(number), status: 200, outcome: .miss, bytes: 0, attempts: 1, started: .milliseconds(start),
                    finished: .milliseconds(start + Int.random(in: 1...6, using: &generator)))
            }
            #expect(WalkRecord.criticalPath(of: fetches).map(\.number) == plain(fetches), "\(fetches.map { ($0.number, $0.started, $0.finished) })")
        }
        // A cache hit timed at one instant (started == finished) is not its own cause: the path ends.
        let instant = WalkRecord.Fetch(
            number: 1, url: url(1), status: 200, outcome: .hit, bytes: 0, attempts: 0, started: .milliseconds(5), finished: .milliseconds(5))
        #expect(WalkRecord.criticalPath(of: [instant]).map(\.number) == [1])
    }

    @Test("without explain, no fetch is kept, and the timing over thousands of pages is still the exact union")
    func boundedRecordKeepsExactTiming() {
        let record = WalkRecord(keepsFetches: false)
        var all: [WalkRecord.Fetch] = []
        // 3,000 pages, 8 at a time, finishing out of order within the window; every fifth a cache hit; gaps between rounds.
        for round in 0..<375 {
            for slot in 0..<8 {
                let start = round * 100 + slot
                let fetch = WalkRecord.Fetch(
                    number: round * 8 + slot + 1, url: url(round * 8 + slot + 1), status: 200, outcome: slot % 5 == 0 ? .hit : .miss,
                    bytes: 1, attempts: 1, started: .milliseconds(start), finished: .milliseconds(start + 40 + (7 - slot) * 3))
                all.append(fetch)
            }
            for fetch in all.suffix(8).reversed() { record.record(fetch) }
        }
        #expect(record.fetches.isEmpty)
        #expect(record.timing.upstream == WalkRecord.union(all.filter(\.wentUpstream)))
        #expect(record.timing.cache == WalkRecord.union(all.filter { !$0.wentUpstream }))
    }
}

private final class Seen: Sendable {
    private let storage = Mutex<[WalkRecord.Progress]>([])
    func add(_ progress: WalkRecord.Progress) { storage.withLock { $0.append(progress) } }
    var all: [WalkRecord.Progress] { storage.withLock { $0 } }
}

/// attack7: `_explain` kept every fetch in full (~7 KB a page with ~1 KB URLs); the account keeps the first and the
/// last `keptAtEachEnd`, counts the others, and still takes its critical path, pages and items over every fetch.
@Suite struct WalkRecordBoundTests {
    private func url(_ page: Int) -> PageURL { PageURL(string: "http://api.test/items?page=\(page)")! }

    @Test("past twice the bound, only the first and last fetches are kept; the rest counted, the path and totals whole")
    func aLongWalkKeepsItsEnds() {
        let record = WalkRecord(keptAtEachEnd: 3)
        // 20 pages one after another, 10 ms each; page 7 retried once, page 9 got no answer.
        for number in 1...20 {
            if number == 7 { record.attempted(url(7)) }
            record.attempted(url(number))
            let fetch = WalkRecord.Fetch(
                number: number, url: url(number), status: number == 9 ? nil : 200, outcome: number == 9 ? nil : .miss, bytes: 100,
                attempts: number == 7 ? 2 : 1, started: .milliseconds(number * 10), finished: .milliseconds(number * 10 + 10))
            record.record(fetch)
            record.taken(number: number, url: url(number), items: 2, pagesKnown: nil)
        }
        let kept = record.fetches
        #expect(kept.map(\.number) == [1, 2, 3, 18, 19, 20])
        #expect(kept.allSatisfy { $0.items == 2 })
        let omitted = record.omittedFetches
        #expect(omitted.count == 14 && omitted.pages == 4...17)
        #expect(omitted.bytes == 1_400 && omitted.retries == 1 && omitted.failed == 1)
        #expect(record.criticalPath.map(\.number) == Array(1...20))
        #expect(record.taken == (pages: 20, items: 40))
    }

    @Test("up to twice the bound, every fetch is kept and nothing is said omitted")
    func aShortWalkKeepsAll() {
        let record = WalkRecord(keptAtEachEnd: 3)
        let start = ContinuousClock.now
        for number in 1...6 {
            record.fetched(number: number, url: url(number), status: 200, outcome: .hit, bytes: 1, started: start)
        }
        #expect(record.fetches.count == 6)
        #expect(record.omittedFetches == KeptFetches.Omitted())
    }
}
