import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// The key of a memoized answer's entry in the cache directory is worked out at its first use, not with the plan
/// (issue 13, seventeenth pass: with the memo off nothing asks for it, and its making cost the first request after a
/// restart ~1 ms before its walk).
@Suite struct RequestPlanAnswerKeyTests {
    private static let route = RouteConfig.makeForTests(
        name: "items", upstream: "http://api.test/items", pagination: .pageNumber(PaginationScheme.PageNumber()))

    private static func plan(_ target: String, _ fields: [(String, String)] = []) throws -> RequestPlan {
        let request = HTTPRequestHead(method: .get, target: target, headers: HTTPHeaders([("Host", "x")] + fields))
        return try RequestPlan(request: request, route: route, subpath: "", lookahead: LookaheadMemory())
    }

    @Test("a plan makes no answer key until one is asked for; then the key of its memo input, once")
    func madeAtFirstUse() throws {
        let plan = try Self.plan("/items?a=1")
        #expect(plan.memoKey != nil)
        #expect(!plan.hasMadeAnswerKey)
        let key = try #require(plan.answerKey)
        #expect(plan.hasMadeAnswerKey)
        #expect(plan.answerKey == key)
        // A kept plan answering a repeat shares the key made.
        let repeated = try #require(RequestPlan(plan.kept, answering: plan.request))
        #expect(repeated.hasMadeAnswerKey)
        #expect(repeated.answerKey == key)
    }

    @Test("the key made late is the one made from the same input: the same request's plans agree, other answers differ")
    func sameKeysAsBefore() throws {
        let key = try #require(try Self.plan("/items?a=1").answerKey)
        #expect(try Self.plan("/items?a=1").answerKey == key)
        // `AnswerEntryKey.make` of the digest of the memo's input and the shape.
        let plan = try Self.plan("/items?a=1")
        let input = MergedAnswerMemo.keyInput(
            base: plan.base, pageLimit: plan.options.pageLimit, itemLimit: plan.options.itemLimit, upstreamHeaders: plan.upstreamHeaders)
        #expect(AnswerEntryKey.make(route: Self.route, inputDigest: AnswerEntryKey.digest(input + "\u{0}0\u{0}")) == key)
        for other in ["/items?a=2", "/items?a=1&_max_items=3", "/items?a=1&_fields=id", "/items?a=1&_offset=0&_limit=5"] {
            let otherKey = try #require(try Self.plan(other).answerKey, "\(other)")
            #expect(otherKey != key, "\(other)")
        }
    }

    @Test("an NDJSON plan is never memoized, but has the keys of the merged answer of the same items (nineteenth pass), made only when asked; a window's has none")
    func anNDJSONPlanHasTheMergedAnswersKeys() throws {
        let plan = try Self.plan("/items?a=1", [("Accept", "application/x-ndjson")])
        let merged = try Self.plan("/items?a=1")
        #expect(plan.memoKey == nil)
        #expect(!plan.hasMadeAnswerKey)
        #expect(plan.linesKey != nil && plan.linesKey == merged.memoKey)
        #expect(plan.answerKey != nil && plan.answerKey == merged.answerKey)
        #expect(merged.linesKey == nil)
        let window = try Self.plan("/items?a=1&_offset=0&_limit=5", [("Accept", "application/x-ndjson")])
        #expect(window.linesKey == nil && window.answerKey == nil)
    }
}
