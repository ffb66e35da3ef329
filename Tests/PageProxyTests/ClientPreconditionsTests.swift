import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// RFC 9110 §13.2.2 on GET and HEAD of aggregate answers: `If-Match` (strong comparison) first, a 412 when it names no
/// current answer; `If-Unmodified-Since` and `If-Modified-Since` ignored (no `Last-Modified`); `If-None-Match` (weak)
/// a 304. An NDJSON answer has no entity tag: only `*` matches it.
@Suite struct ClientPreconditionsTests {
    static let target = "/plain?mock_total=15"

    private func code(_ response: RawHTTPClient.Response) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }

    @Test("merged: If-Match by strong comparison, before If-None-Match; the Since fields ignored with no Last-Modified")
    func mergedAnswersWeighIfMatchFirst() async throws {
        try await TestStack.run { stack in
            let first = try await stack.get(Self.target)
            #expect(first.status == 200)
            let etag = try #require(first.header("ETag"))
            #expect(first.header("Last-Modified") == nil)
            #expect(try await stack.get(Self.target, headers: ["If-Match": etag]).status == 200)
            #expect(try await stack.get(Self.target, headers: ["If-Match": "\"other\", \(etag)"]).status == 200)
            #expect(try await stack.get(Self.target, headers: ["If-Match": "*"]).status == 200)
            let failed = try await stack.get(Self.target, headers: ["If-Match": "\"other\""])
            #expect(failed.status == 412)
            #expect(code(failed) == "precondition_failed")
            // A weak tag never matches strongly, even the answer's own.
            #expect(try await stack.get(Self.target, headers: ["If-Match": "W/\(etag)"]).status == 412)
            // If-Match is weighed first: a failed one is a 412 even where If-None-Match would be a 304 …
            #expect(try await stack.get(Self.target, headers: ["If-Match": "\"other\"", "If-None-Match": etag]).status == 412)
            // … and a met one leaves If-None-Match to decide.
            let notModified = try await stack.get(Self.target, headers: ["If-Match": etag, "If-None-Match": etag])
            #expect(notModified.status == 304 && notModified.body.isEmpty)
            // No Last-Modified: If-Unmodified-Since is ignored (RFC 9110 §13.1.4), a date long past or not.
            let old = "Sun, 06 Nov 1994 08:49:37 GMT"
            #expect(try await stack.get(Self.target, headers: ["If-Unmodified-Since": old]).status == 200)
            #expect(try await stack.get(Self.target, headers: ["If-Modified-Since": HTTPDate.format(Date())]).status == 200)
            // HEAD too.
            let client = try await stack.client()
            #expect(try await client.request(Self.target, method: "HEAD", headers: ["If-Match": "\"other\""]).status == 412)
        }
    }

    @Test("merged from the memo: the same 412 and 304")
    func memoizedAnswersWeighThePreconditionsToo() async throws {
        try await CacheTests.run { stack, _ in
            let first = try await stack.get(CacheTests.target)
            let etag = try #require(first.header("ETag"))
            stack.mock.log.reset()
            let memoized = try await stack.get(CacheTests.target, headers: ["If-Match": etag])
            #expect(memoized.status == 200)
            #expect(memoized.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(try await stack.get(CacheTests.target, headers: ["If-Match": "\"other\""]).status == 412)
            #expect(try await stack.get(CacheTests.target, headers: ["If-Match": etag, "If-None-Match": "*"]).status == 304)
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("NDJSON, no entity tag: If-None-Match * is a 304 with no length, If-Match naming a tag a 412, If-Match * the items")
    func ndjsonAnswersMatchOnlyAStar() async throws {
        try await TestStack.run { stack in
            let target = Self.target + "&_format=ndjson"
            let plain = try await stack.get(target)
            #expect(plain.status == 200 && plain.header("ETag") == nil)
            let star = try await stack.get(target, headers: ["If-None-Match": "*"])
            #expect(star.status == 304 && star.body.isEmpty)
            #expect(star.header("Content-Length") == nil)
            // The 200's fields but its type (RFC 9110 §15.4.5): a window's `Link` to the next too.
            #expect(star.header("Content-Type") == nil && star.header("Cache-Control") == plain.header("Cache-Control"))
            let window = target + "&_limit=5"
            let windowed = try await stack.get(window, headers: ["If-None-Match": "*"])
            #expect(windowed.status == 304 && windowed.header("Link") != nil)
            #expect(windowed.header("Link") == (try await stack.get(window)).header("Link"))
            #expect(try await stack.get(target, headers: ["If-None-Match": "\"x\""]).body == plain.body)
            let failed = try await stack.get(target, headers: ["If-Match": "\"x\""])
            #expect(failed.status == 412 && code(failed) == "precondition_failed")
            #expect(try await stack.get(target, headers: ["If-Match": "*"]).body == plain.body)
        }
    }

    @Test("a walk that fails is answered with its error, its preconditions ignored (RFC 9110 §13.2.1)")
    func aFailedWalkIgnoresThePreconditions() async throws {
        try await TestStack.run { stack in
            let failing = Self.target + "&mock_fault=status500@1"
            let merged = try await stack.get(failing, headers: ["If-Match": "\"x\""])
            #expect(merged.status >= 500, "\(merged.status)")
            let ndjson = try await stack.get(failing + "&_format=ndjson", headers: ["If-None-Match": "*"])
            #expect(ndjson.status >= 500, "\(ndjson.status)")
        }
    }

    @Test("NDJSON whose second page fails: no 304 or 412 for it, the walk's error (weighed at the walk's end, as merged)")
    func anNDJSONWalkFailingLaterIsNotNotModified() async throws {
        try await TestStack.run { stack in
            let failing = Self.target + "&mock_fault=status500@2&_format=ndjson"
            for headers in [["If-None-Match": "*"], ["If-Match": "\"x\""]] {
                let response = try await stack.get(failing, headers: headers)
                #expect(response.status >= 500 && code(response) != nil, "\(headers): \(response.status)")
            }
            // A walk that ends well is still a 304 for `*`, once every page has come.
            stack.mock.log.reset()
            let star = try await stack.get(Self.target + "&_format=ndjson", headers: ["If-None-Match": "*"])
            #expect(star.status == 304 && star.body.isEmpty)
            // Both pages (ten items a page) were fetched before it was answered.
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test("If-Match: \"x\", * (a star among tags is invalid) is not taken for *: a 412; If-None-Match so written is no 304")
    func aStarAmongTagsIsNotAStar() async throws {
        try await TestStack.run { stack in
            let failed = try await stack.get(Self.target, headers: ["If-Match": "\"x\", *"])
            #expect(failed.status == 412 && code(failed) == "precondition_failed")
            #expect(try await stack.get(Self.target + "&_format=ndjson", headers: ["If-Match": "\"x\", *"]).status == 412)
            #expect(try await stack.get(Self.target, headers: ["If-None-Match": "\"x\", *"]).status == 200)
            #expect(try await stack.get(Self.target + "&_format=ndjson", headers: ["If-None-Match": "\"x\", *"]).status == 200)
        }
    }

    @Test("_explain is another representation: no ETag, never a 304 or 412, whatever the preconditions")
    func explainIgnoresThePreconditions() async throws {
        try await TestStack.run { stack in
            let target = Self.target + "&_explain=1"
            for headers in [["If-None-Match": "*"], ["If-Match": "\"x\""], [:]] {
                let response = try await stack.get(target, headers: headers)
                #expect(response.status == 200 && response.header("ETag") == nil, "\(headers)")
                #expect(response.text.contains(#""outcome":"complete""#), "\(headers)")
            }
        }
    }
}
