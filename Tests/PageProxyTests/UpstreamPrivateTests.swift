import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md: answers say `private` when credentials went upstream. A page its upstream marked `Cache-Control:
/// private` is for the identity of the credentials PageProxy sent (the route's own, or a client's): PageProxy keeps it
/// (its cache is keyed by those credentials), but every answer built from it says `private`, so that no shared cache
/// in front of PageProxy (nginx, a CDN) keeps it for everyone.
@Suite struct UpstreamPrivateTests {
    static let v1 = CacheCoherenceTests.v1
    static let oneHit = CacheCoherenceTests.oneHit

    /// Whether `response` says only a private cache may keep it, for `maxAge` seconds at most (and more than 0).
    static func isPrivate(_ response: RawHTTPClient.Response) -> Bool {
        guard let value = response.header("Cache-Control"), value.hasPrefix("private, max-age=") else { return false }
        return Int(value.dropFirst("private, max-age=".count)).map { (1...600).contains($0) } ?? false
    }

    @Test("a page the upstream marked private: kept by PageProxy, and every answer built from it says private — walk, memo, window, after a restart")
    func everyAnswerOfAPrivatePageSaysPrivate() async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: Self.v1, cacheControl: "private, max-age=600")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-private-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await CacheCoherenceTests.run(upstream, directory: directory) { stack in
            let walked = try await stack.get("/changing")
            #expect(walked.text == Self.v1)
            #expect(Self.isPrivate(walked), "\(walked.header("Cache-Control") ?? "none")")
            // Stored all the same: the repeat is the memo's, with no upstream request, and private too.
            upstream.resetLog()
            let memoized = try await stack.get("/changing")
            #expect(memoized.header("PageProxy-Cache") == Self.oneHit)
            #expect(Self.isPrivate(memoized), "\(memoized.header("Cache-Control") ?? "none")")
            let etag = try #require(walked.header("ETag"))
            let notModified = try await stack.get("/changing", headers: ["If-None-Match": etag])
            #expect(notModified.status == 304)
            #expect(Self.isPrivate(notModified), "\(notModified.header("Cache-Control") ?? "none")")
            // A window of it: another answer, built from the same stored page.
            let window = try await stack.get("/changing?_max_items=1")
            #expect(window.header("PageProxy-Cache") == Self.oneHit)
            #expect(Self.isPrivate(window), "\(window.header("Cache-Control") ?? "none")")
            #expect(upstream.received.isEmpty)
        }
        // After a restart, from the stored entry alone (no memo yet): it remembers the upstream's `private`.
        try await CacheCoherenceTests.run(upstream, directory: directory) { stack in
            upstream.resetLog()
            let restarted = try await stack.get("/changing")
            #expect(restarted.header("PageProxy-Cache") == Self.oneHit)
            #expect(Self.isPrivate(restarted), "\(restarted.header("Cache-Control") ?? "none")")
            #expect(upstream.received.isEmpty)
        }
        // The memo off: every answer is a walk through the cache (or the one-page answer).
        try await CacheCoherenceTests.run(upstream, directory: directory, memoBytes: 0) { stack in
            for _ in 0..<2 {
                let walked = try await stack.get("/changing")
                #expect(walked.header("PageProxy-Cache") == Self.oneHit)
                #expect(Self.isPrivate(walked), "\(walked.header("Cache-Control") ?? "none")")
            }
        }
        await upstream.stop()
    }

    @Test("a 304 that makes a stored page private makes its answers private; private=\"field\" counts as private")
    func aRevalidationThatSaysPrivateIsRemembered() async throws {
        let upstream = try ChangingUpstream()
        try await CacheCoherenceTests.run(upstream) { stack in
            let shared = try await stack.get("/changing")
            #expect(shared.header("Cache-Control")?.hasPrefix("max-age=") == true)
            // Same body, same ETag: the forced revalidation is a 304, carrying the new Cache-Control.
            upstream.set(body: Self.v1, cacheControl: #"private="Set-Cookie", max-age=600"#)
            let revalidated = try await stack.get("/changing", headers: ["Cache-Control": "no-cache"])
            #expect(revalidated.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=1 stale=0 bypassed=0")
            #expect(Self.isPrivate(revalidated), "\(revalidated.header("Cache-Control") ?? "none")")
            let hit = try await stack.get("/changing")
            #expect(hit.header("PageProxy-Cache") == Self.oneHit)
            #expect(Self.isPrivate(hit), "\(hit.header("Cache-Control") ?? "none")")
        }
        await upstream.stop()
    }
}
