import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Memo hits answered on the socket loop's thread as they arrive (`AnswerOnArrival`, issue 13) say exactly what the
/// connection's task says for the same hit: same status, fields and body; HEAD, 304 and 412 too; counted and coherent
/// with the cache. A connection's first request is read by its task; the ones after it on a kept connection arrive
/// while the task waits, and are answered on arrival, up to eight pipelined at once (the rest by the task).
@Suite struct MemoOnArrivalEndToEndTests {
    static let target = CacheTests.target

    /// The fields of a response but those that change from one answer to the next (`Date`, `Server-Timing`).
    static func steadyFields(_ response: RawHTTPClient.Response) -> [String] {
        response.fields.filter { !["date", "server-timing"].contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
    }

    @Test("pipelined hits: those answered on arrival and those the task answers are the same status, fields and body")
    func answersOnArrivalAreTheTasks() async throws {
        try await CacheTests.run { stack, _ in
            let walked = try await stack.get(Self.target)
            let client = try await stack.client()
            // The task's answer (the connection's first request), then one on arrival.
            let byTask = try await client.request(Self.target)
            let onArrival = try await client.request(Self.target)
            #expect(byTask.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            for response in [onArrival] {
                #expect(response.status == 200)
                #expect(response.body == walked.body)
                #expect(Self.steadyFields(response) == Self.steadyFields(byTask))
                #expect(response.header("Server-Timing") != nil)
                #expect(response.header("Date") != nil)
            }
            // Ten at once: eight on arrival, two by the task; all alike, in order.
            try await client.send(String(repeating: RawHTTPClient.requestText(Self.target), count: 10))
            for _ in 0..<10 {
                let response = try await client.readResponse()
                #expect(response.body == walked.body)
                #expect(Self.steadyFields(response) == Self.steadyFields(byTask))
            }
            // Counted as any answer: the walk, the task's hit, and the eleven after.
            let metrics = try PrometheusTextParser(try await client.request("/metrics").text)
            #expect(metrics.value("pageproxy_requests_total", ["route": "github", "status": "200"]) == 13)
        }
    }

    @Test("HEAD on arrival: the GET's fields, no body, and the connection goes on")
    func headOnArrival() async throws {
        try await CacheTests.run { stack, _ in
            let walked = try await stack.get(Self.target)
            let client = try await stack.client()
            let get = try await client.request(Self.target)
            let head = try await client.request(Self.target, method: "HEAD")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(Self.steadyFields(head) == Self.steadyFields(get))
            #expect(head.header("Content-Length") == String(walked.body.count))
            #expect(try await client.request(Self.target).body == walked.body)
        }
    }

    @Test("If-None-Match on arrival is a 304 with the 200's fields but Content-Type; If-Match naming another tag a 412")
    func preconditionsOnArrival() async throws {
        try await CacheTests.run { stack, _ in
            let walked = try await stack.get(Self.target)
            let tag = try #require(walked.header("ETag"))
            let client = try await stack.client()
            // The first by the task: its 304 is the reference.
            let byTask = try await client.request(Self.target, headers: ["If-None-Match": tag])
            let onArrival = try await client.request(Self.target, headers: ["If-None-Match": tag])
            for response in [byTask, onArrival] {
                #expect(response.status == 304)
                #expect(response.body.isEmpty)
                #expect(response.header("ETag") == tag)
                #expect(response.header("Content-Type") == nil)
            }
            #expect(Self.steadyFields(onArrival) == Self.steadyFields(byTask))
            let failed = try await client.request(Self.target, headers: ["If-Match": "\"other\""])
            #expect(failed.status == 412)
            #expect(failed.text.contains("precondition_failed"))
            #expect(try await client.request(Self.target).body == walked.body)
        }
    }

    @Test("a page changed in the cache is not answered stale on arrival (the reported sequence, on one connection)")
    func aChangedPageIsNotAnsweredStaleOnArrival() async throws {
        let upstream = try ChangingUpstream()
        try await CacheCoherenceTests.run(upstream) { stack in
            let client = try await stack.client()
            #expect(try await client.request("/changing").text == CacheCoherenceTests.v1)
            let hit = try await client.request("/changing")
            #expect(hit.text == CacheCoherenceTests.v1)
            #expect(hit.header("PageProxy-Cache") == CacheCoherenceTests.oneHit)
            upstream.set(body: CacheCoherenceTests.v2, cacheControl: "max-age=600")
            // Still the memo's: nothing has changed in the cache yet.
            #expect(try await client.request("/changing").text == CacheCoherenceTests.v1)
            let refetched = try await client.request("/changing", headers: CacheCoherenceTests.ndjsonNoCache)
            #expect(refetched.text == #"{"v":2}"# + "\n")
            upstream.resetLog()
            let merged = try await client.request("/changing")
            #expect(merged.text == CacheCoherenceTests.v2)
            #expect(merged.header("PageProxy-Cache") == CacheCoherenceTests.oneHit)
            #expect(upstream.received.isEmpty)
        }
        await upstream.stop()
    }
}
