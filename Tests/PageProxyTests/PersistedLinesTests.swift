import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// Issue 13, nineteenth pass: after a restart, NDJSON of the same items as a merged answer kept in the cache directory
/// is sent from that answer's entry (its body, split at the item separators kept with it), with no walk — what a walk
/// through the pages sends, byte for byte, and only while every page it was built from is unchanged and fresh.
@Suite struct PersistedLinesTests {
    static let ndjson = ["Accept": "application/x-ndjson"]
    /// Two items a page, whose strings hold the bytes a split must not take for structure; `{page}` is the page's number.
    static let pageBody = #"[{"p":{page},"s":"a,],}{"},{"p":{page},"q":"\",\\","n":[1,{"x":[2]}]}]"#
    /// Three pages of two items, a total stated (`PageProxy-Total`).
    static func threePages(_ upstream: ChangingUpstream) -> (inout RouteConfig) -> Void {
        upstream.set(body: pageBody, cacheControl: "max-age=600", more: [("X-Total-Count", "6")])
        upstream.emptyPages(past: 3)
        return { route in
            var options = PaginationScheme.PageNumber()
            options.pageSize = 2
            options.totalItemsHeader = "X-Total-Count"
            route.pagination = .scheme(.pageNumber(options))
        }
    }

    /// The fields of `response` but those of the moment and of its framing (the walk after a restart streams its
    /// lines; the entry's answer knows their length).
    static func fields(_ response: RawHTTPClient.Response) -> [String] {
        let momentary: Set<String> = ["date", "server-timing", "content-length", "transfer-encoding", "pageproxy-cache", "age"]
        return response.fields.filter { !momentary.contains($0.name.lowercased()) }.map { "\($0.name.lowercased()): \($0.value)" }
    }

    @Test("after a restart, NDJSON of a kept merged answer's items is sent from its entry: the walk's lines byte for byte and its fields; no page read, no upstream request; a HEAD, a precondition")
    func ndjsonAfterARestartIsSentFromTheAnswersEntry() async throws {
        let upstream = try ChangingUpstream()
        let route = Self.threePages(upstream)
        try await PersistedAnswerTests.withDirectory { directory in
            // The walks to compare with: the memo off keeps no answer, and walks through the pages (in memory, then
            // from their files after a restart).
            let inMemory = try await PersistedAnswerTests.run(upstream, directory: directory, memoBytes: 0, route: route) { stack in
                try await stack.get("/changing", headers: Self.ndjson)
            }
            let fromFiles = try await PersistedAnswerTests.run(upstream, directory: directory, memoBytes: 0, route: route) { stack in
                try await stack.get("/changing", headers: Self.ndjson)
            }
            #expect(inMemory.status == 200 && inMemory.text.split(separator: "\n").count == 6)
            #expect(fromFiles.body == inMemory.body)
            #expect(PersistedAnswerTests.answerFiles(in: directory).isEmpty)
            // A merged request keeps its answer in the directory.
            try await PersistedAnswerTests.run(upstream, directory: directory, route: route) { stack in
                let answer1 = try await stack.get("/changing")
                #expect(answer1.header("PageProxy-Items") == "6")
            }
            // The NDJSON answer's entry is queued as its connection's task ends, which may be after the client read it
            // and after `run`'s wait for the queue (a load flake, 2026-11-28): polled, bounded.
            try await poll("the answer's entry is written") { PersistedAnswerTests.answerFiles(in: directory).count == 1 }
            upstream.resetLog()
            try await PersistedAnswerTests.run(upstream, directory: directory, route: route) { stack in
                let uses = PersistedAnswerTests.storeUses(stack)
                let lines = try await stack.get("/changing", headers: Self.ndjson)
                #expect(lines.status == 200)
                #expect(lines.body == inMemory.body)
                #expect(Self.fields(lines) == Self.fields(inMemory))
                #expect(Self.fields(lines) == Self.fields(fromFiles))
                #expect(lines.header("Content-Length") == String(inMemory.body.count))
                #expect(lines.header("PageProxy-Total") == "6")
                #expect(PersistedAnswerTests.storeUses(stack) == uses)
                // Again, now from the memo (the answer read from the entry, its body in its file).
                let again = try await stack.get("/changing", headers: Self.ndjson)
                #expect(again.body == inMemory.body)
                let head = try await stack.client().request("/changing", method: "HEAD", headers: Self.ndjson)
                #expect(head.status == 200 && head.body.isEmpty)
                #expect(head.header("Content-Length") == String(inMemory.body.count))
                // NDJSON has no entity tag: `If-None-Match: *` is a 304 as the walk's.
                let star = try await stack.get("/changing", headers: Self.ndjson.merging(["If-None-Match": "*"]) { $1 })
                #expect(star.status == 304)
                // The merged answer is still the same one, from the same entry.
                let answer2 = try await stack.get("/changing")
                #expect(answer2.header("PageProxy-Items") == "6")
                #expect(PersistedAnswerTests.storeUses(stack) == uses)
                let log = try await stack.get("/metrics").text
                #expect(log.contains("pageproxy_cache_answer_entries 1"))
            }
            #expect(upstream.received.isEmpty)
        }
        await upstream.stop()
    }

    @Test("an NDJSON walk keeps the merged answer of its items too: after a restart both NDJSON and the merged answer are sent from it, the merged one with the merged walk's ETag")
    func anNDJSONWalkKeepsTheMergedAnswer() async throws {
        let upstream = try ChangingUpstream()
        let route = Self.threePages(upstream)
        try await PersistedAnswerTests.withDirectory { directory in
            // The merged walk to compare with (the memo off: nothing kept).
            let merged = try await PersistedAnswerTests.run(upstream, directory: directory, memoBytes: 0, route: route) { stack in
                try await stack.get("/changing")
            }
            #expect(PersistedAnswerTests.answerFiles(in: directory).isEmpty)
            let walked = try await PersistedAnswerTests.run(upstream, directory: directory, route: route) { stack in
                try await stack.get("/changing", headers: Self.ndjson)
            }
            // The NDJSON answer's entry is queued as its connection's task ends, which may be after the client read it
            // and after `run`'s wait for the queue (a load flake, 2026-11-28): polled, bounded.
            try await poll("the answer's entry is written") { PersistedAnswerTests.answerFiles(in: directory).count == 1 }
            upstream.resetLog()
            try await PersistedAnswerTests.run(upstream, directory: directory, route: route) { stack in
                let uses = PersistedAnswerTests.storeUses(stack)
                let lines = try await stack.get("/changing", headers: Self.ndjson)
                #expect(lines.body == walked.body)
                #expect(Self.fields(lines) == Self.fields(walked))
                let replayed = try await stack.get("/changing")
                #expect(replayed.body == merged.body)
                #expect(replayed.header("ETag") == merged.header("ETag"))
                #expect(replayed.header("PageProxy-Items") == "6" && replayed.header("PageProxy-Pages") == merged.header("PageProxy-Pages"))
                #expect(replayed.header("PageProxy-Total") == merged.header("PageProxy-Total"))
                #expect(PersistedAnswerTests.storeUses(stack) == uses)
            }
            #expect(upstream.received.isEmpty)
        }
        await upstream.stop()
    }

    /// How a page changes: between the runs (as `PersistedAnswerTests.Change`), or by another process that renames a
    /// new file over its entry (the same bytes: a new file all the same).
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case replacedBy200, refreshedBy304, removedByNoStore, evicted, writtenByAnotherProcess
        var testDescription: String { rawValue }
    }

    @Test("a page changed after the merged answer was kept: NDJSON after a restart is not sent from its entry, the walk answers", arguments: Change.allCases)
    func aChangedPageIsNotAnsweredFromTheEntry(_ change: Change) async throws {
        let upstream = try ChangingUpstream()
        let v2 = #"[{"v":2}]"#
        try await PersistedAnswerTests.withDirectory { directory in
            try await PersistedAnswerTests.run(upstream, directory: directory) { stack in
                _ = try await stack.get("/changing")
                await AnswerEntries.waitForWrites()
                switch change {
                case .replacedBy200: upstream.set(body: v2, cacheControl: "max-age=600")
                case .removedByNoStore: upstream.set(body: v2, cacheControl: "no-store")
                case .refreshedBy304, .evicted, .writtenByAnotherProcess: return
                }
                _ = try await stack.get("/changing", headers: CacheCoherenceTests.ndjsonNoCache)
            }
            let answers = PersistedAnswerTests.answerFiles(in: directory)
            let pages = (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".entry") }.map { "\(directory)/\($0)" }.filter { !answers.contains($0) }
            switch change {
            case .refreshedBy304:
                // Ten minutes and more later, the page is revalidated (a 304), not sent from the entry.
                break
            case .evicted:
                for page in pages { try FileManager.default.removeItem(atPath: page) }
            case .writtenByAnotherProcess:
                for page in pages {
                    try FileManager.default.copyItem(atPath: page, toPath: page + ".new")
                    #expect(rename(page + ".new", page) == 0)
                }
            case .replacedBy200, .removedByNoStore: break
            }
            let clock: PageProxyClock = change == .refreshedBy304 ? .wall { Date().addingTimeInterval(700) } : .system
            try await PersistedAnswerTests.run(upstream, directory: directory, clock: clock) { stack in
                upstream.resetLog()
                let uses = PersistedAnswerTests.storeUses(stack)
                let lines = try await stack.get("/changing", headers: Self.ndjson)
                #expect(lines.status == 200)
                switch change {
                case .replacedBy200, .removedByNoStore: #expect(lines.text == #"{"v":2}"# + "\n")
                case .refreshedBy304, .evicted, .writtenByAnotherProcess: #expect(lines.text == #"{"v":1}"# + "\n")
                }
                // The walk looked its page up (or fetched it: not stored, or evicted).
                switch change {
                case .removedByNoStore, .evicted: #expect(upstream.received.count == 1)
                case .refreshedBy304: #expect(upstream.received.first?.ifNoneMatch != nil)
                case .replacedBy200, .writtenByAnotherProcess:
                    #expect(upstream.received.isEmpty)
                    #expect(PersistedAnswerTests.storeUses(stack) > uses)
                }
            }
        }
        await upstream.stop()
    }

    @Test("a page changed while the answer read from its entry is in the memo: the next NDJSON is the walk's, never the old lines (the issue's sequence)")
    func aPageChangedWhileInTheMemoIsNotSentAsLines() async throws {
        let upstream = try ChangingUpstream()
        try await PersistedAnswerTests.withDirectory { directory in
            try await PersistedAnswerTests.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            try await PersistedAnswerTests.run(upstream, directory: directory) { stack in
                let uses = PersistedAnswerTests.storeUses(stack)
                let answer3 = try await stack.get("/changing", headers: Self.ndjson)
                #expect(answer3.text == #"{"v":1}"# + "\n")
                #expect(PersistedAnswerTests.storeUses(stack) == uses)
                upstream.set(body: #"[{"v":2}]"#, cacheControl: "max-age=600")
                let answer4 = try await stack.get("/changing", headers: CacheCoherenceTests.ndjsonNoCache)
                #expect(answer4.text == #"{"v":2}"# + "\n")
                let answer5 = try await stack.get("/changing", headers: Self.ndjson)
                #expect(answer5.text == #"{"v":2}"# + "\n")
                let answer6 = try await stack.get("/changing")
                #expect(answer6.text == #"[{"v":2}]"#)
            }
        }
        await upstream.stop()
    }

    @Test("a client that takes trailers, `_fresh`, and a window are walked, not sent from the entry")
    func trailersFreshAndWindowsWalk() async throws {
        let upstream = try ChangingUpstream()
        try await PersistedAnswerTests.withDirectory { directory in
            try await PersistedAnswerTests.run(upstream, directory: directory) { stack in _ = try await stack.get("/changing") }
            try await PersistedAnswerTests.run(upstream, directory: directory) { stack in
                for (target, headers) in [
                    ("/changing", Self.ndjson.merging(["TE": "trailers"]) { $1 }), ("/changing?_fresh=1", Self.ndjson),
                    ("/changing?_offset=0&_limit=1", Self.ndjson),
                ] {
                    let uses = PersistedAnswerTests.storeUses(stack)
                    let lines = try await stack.get(target, headers: headers)
                    #expect(lines.text == #"{"v":1}"# + "\n", "\(target)")
                    #expect(PersistedAnswerTests.storeUses(stack) > uses || !upstream.received.isEmpty, "\(target)")
                }
            }
        }
        await upstream.stop()
    }
}
