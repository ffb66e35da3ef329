import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Plans found by the raw request (issue 13): a repeat is not planned again, and two requests share a plan only when
/// planning each from scratch would give the same one.
@Suite struct RequestPlanCacheTests {
    private static let route: RouteConfig = {
        var route = RouteConfig.makeForTests(
            name: "items", upstream: "http://api.test/items", pagination: .pageNumber(PaginationScheme.PageNumber()))
        route.forwardHeaders = ["Authorization"]
        return route
    }()

    private static func request(_ target: String = "/items?a=1", _ fields: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(method: .get, target: target, headers: HTTPHeaders([("Host", "x")] + fields))
    }

    private static func plan(_ request: HTTPRequestHead) throws -> RequestPlan {
        try RequestPlan(request: request, route: route, subpath: "", lookahead: LookaheadMemory())
    }

    @Test("a repeat with the same target and deciding fields gets the kept plan, answering the repeat")
    func repeatGetsTheKeptPlan() throws {
        let plans = RequestPlanCache(routes: [Self.route])
        let first = Self.request("/items?a=1", [("Authorization", "Bearer a"), ("If-None-Match", "\"old\"")])
        let kept = try Self.plan(first)
        plans.keep(kept, for: first)
        // Fields that decide nothing (If-None-Match, User-Agent) differ; the request answered is the repeat.
        let repeated = Self.request("/items?a=1", [("User-Agent", "curl"), ("Authorization", "Bearer a"), ("If-None-Match", "\"new\"")])
        let found = try #require(plans.plan(for: repeated))
        #expect(found.request.headers["If-None-Match"] == "\"new\"")
        #expect(found.memoKey == kept.memoKey)
        #expect(found.base == kept.base)
        #expect(found.upstreamHeaders == kept.upstreamHeaders)
    }

    @Test("another target, Accept, control field, Cache-Control, Pragma or forwarded credential never shares a plan")
    func decidingFieldsAreInTheKey() throws {
        let plans = RequestPlanCache(routes: [Self.route])
        let first = Self.request("/items?a=1", [("Authorization", "Bearer a")])
        plans.keep(try Self.plan(first), for: first)
        let others: [HTTPRequestHead] = [
            Self.request("/items?a=2", [("Authorization", "Bearer a")]),
            Self.request("/items?a=1&_max_items=1", [("Authorization", "Bearer a")]),
            Self.request("/items?a=1", [("Authorization", "Bearer b")]),
            Self.request("/items?a=1", []),
            Self.request("/items?a=1", [("Authorization", "Bearer a"), ("Accept", "application/x-ndjson")]),
            Self.request("/items?a=1", [("Authorization", "Bearer a"), ("PageProxy-Max-Items", "1")]),
            Self.request("/items?a=1", [("Authorization", "Bearer a"), ("pageproxy-format", "ndjson")]),
            Self.request("/items?a=1", [("Authorization", "Bearer a"), ("Cache-Control", "no-cache")]),
            Self.request("/items?a=1", [("Authorization", "Bearer a"), ("Pragma", "no-cache")]),
            Self.request("/items?a=1", [("Authorization", "Bearer a"), ("Authorization", "Bearer a")]),
        ]
        for other in others {
            #expect(plans.plan(for: other) == nil, "\(other.target) \(Array(other.headers))")
        }
        #expect(plans.plan(for: Self.request("/items?a=1", [("Authorization", "Bearer a")])) != nil)
    }

    @Test("a plan's first page URL and cache key are the walk's own: the strategy's first page, keyed with the headers sent")
    func firstPageAndKeyAreTheWalksOwn() throws {
        let request = Self.request("/items?a=1", [("Authorization", "Bearer a")])
        let plan = try Self.plan(request)
        let first = try #require(plan.options.firstPage)
        #expect(first == PaginationScheme.pageNumber(PaginationScheme.PageNumber()).makeStrategy().firstPage(from: plan.base))
        #expect(plan.firstPageKey == CacheKey(UpstreamRequest(url: first, headers: plan.upstreamHeaders)))
        let other = try Self.plan(Self.request("/items?a=1", [("Authorization", "Bearer b")]))
        #expect(other.firstPageKey != plan.firstPageKey)
    }

    @Test("no kept key or plan holds a client's credential: forwarded, not forwarded, or in the query (loose12)")
    func keepsNoCredential() throws {
        let plans = RequestPlanCache(routes: [Self.route])
        let secrets = ["Bearer forwarded-s3cret", "session=cookie-s3cret"]
        let first = Self.request("/items?a=1", [("Authorization", secrets[0]), ("Cookie", secrets[1])])
        plans.keep(try Self.plan(first), for: first)
        #expect(plans.count == 1)
        for (key, kept) in plans.kept {
            for secret in ["forwarded-s3cret", "cookie-s3cret"] {
                #expect(!Self.holds(key, secret), "the key holds \(secret)")
                #expect(!Self.holds(kept, secret), "the plan holds \(secret)")
            }
        }
        // The kept plan still sends each request's own credential, and keys its pages as a plan made afresh would.
        let repeated = Self.request("/items?a=1", [("Authorization", secrets[0])])
        let found = try #require(plans.plan(for: Self.request("/items?a=1", [("Authorization", secrets[0]), ("Cookie", "other")])))
        let fresh = try Self.plan(repeated)
        #expect(found.upstreamHeaders == fresh.upstreamHeaders)
        #expect(found.upstreamHeaders["Authorization"] == secrets[0])
        #expect(found.secrets == fresh.secrets)
        #expect(found.firstPageKey == fresh.firstPageKey)
        let second = try #require(PageURL(string: "http://api.test/items?a=1&page=2"))
        #expect(found.pageKeys.key(for: second, number: 2) == fresh.pageKeys.key(for: second, number: 2))
        // A query that names a credential is its URL, which a plan is: such a request is planned every time.
        let keyed = Self.request("/items?a=1&api_key=query-s3cret")
        plans.keep(try Self.plan(keyed), for: keyed)
        #expect(plans.count == 1)
        #expect(plans.plan(for: keyed) == nil)
    }

    /// Whether `value`, or anything it holds (followed through stored properties, classes once each), holds `secret`
    /// in a string or in bytes.
    private static func holds(_ value: Any, _ secret: String, depth: Int = 0, seen: inout Set<ObjectIdentifier>) -> Bool {
        if let text = value as? String { return text.contains(secret) }
        if let bytes = value as? [UInt8] { return String(decoding: bytes, as: UTF8.self).contains(secret) }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class, let object = value as AnyObject? {
            guard seen.insert(ObjectIdentifier(object)).inserted else { return false }
        }
        guard depth < 24 else { return false }
        return mirror.children.contains { holds($0.value, secret, depth: depth + 1, seen: &seen) }
            || (mirror.superclassMirror.map { superclass in superclass.children.contains { holds($0.value, secret, depth: depth + 1, seen: &seen) } } ?? false)
    }

    private static func holds(_ value: Any, _ secret: String) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        return holds(value, secret, seen: &seen)
    }

    @Test("a request with a field value that is not UTF-8 is planned every time")
    func nonUTF8FieldsAreNotKept() throws {
        let plans = RequestPlanCache(routes: [Self.route])
        var request = Self.request()
        request.fieldsNotUTF8 = ["X-Other"]
        plans.keep(try Self.plan(request), for: request)
        #expect(plans.count == 0)
        #expect(plans.plan(for: request) == nil)
    }

    @Test("a key past the bound is not kept, and the cache never holds more than its capacity")
    func boundedInKeysAndEntries() throws {
        let plans = RequestPlanCache(routes: [Self.route], capacity: 3)
        let long = Self.request("/items?a=" + String(repeating: "x", count: RequestPlanCache.maxKeyBytes))
        plans.keep(try Self.plan(long), for: long)
        #expect(plans.count == 0)
        for number in 0..<10 {
            let request = Self.request("/items?n=\(number)")
            plans.keep(try Self.plan(request), for: request)
            #expect(plans.count <= 3)
            #expect(plans.plan(for: request) != nil)
        }
    }

    @Test("through the responder: a repeat is answered from the kept plan with the same bytes and record; a 400 is never kept")
    func responderKeepsPlansOfGoodRequestsOnly() async throws {
        let proxy = InMemoryProxy()
        let first = try await proxy.request("/plain?mock_total=30")
        #expect(first.response.status == 200)
        #expect(proxy.responder.plans.count == 1)
        let repeated = try await proxy.request("/plain?mock_total=30")
        #expect(repeated.response.body == first.response.body)
        #expect(repeated.record.route == "plain")
        #expect(repeated.record.pages == first.record.pages)
        #expect(repeated.record.items == 30)
        #expect(repeated.record.cache == first.record.cache)
        let refused = try await proxy.request("/plain?_max_items=0")
        #expect(refused.response.status == 400)
        #expect(proxy.responder.plans.count == 1)
        // Another format on the same target is planned on its own.
        let ndjson = try await proxy.request("/plain?mock_total=30", headers: [("Accept", "application/x-ndjson")])
        #expect(ndjson.response.header("Content-Type")?.hasPrefix("application/x-ndjson") == true)
        #expect(proxy.responder.plans.count == 2)
    }

    @Test("a memoized answer found by the raw request still honours If-None-Match, and another Accept still gets NDJSON")
    func memoHitThroughTheKeptPlanHonoursConditions() async throws {
        let upstream = try ChangingUpstream()
        try await CacheCoherenceTests.run(upstream) { stack in
            let first = try await CacheCoherenceTests.memoize(stack, upstream)
            let etag = try #require(first.header("ETag"))
            let notModified = try await stack.get("/changing", headers: ["If-None-Match": etag])
            #expect(notModified.status == 304)
            #expect(notModified.header("ETag") == etag)
            #expect(notModified.header("PageProxy-Cache") == CacheCoherenceTests.oneHit)
            let other = try await stack.get("/changing", headers: ["If-None-Match": "\"other\""])
            #expect(other.status == 200)
            #expect(other.text == CacheCoherenceTests.v1)
            let streamed = try await stack.get("/changing", headers: ["Accept": "application/x-ndjson"])
            #expect(streamed.text == #"{"v":1}"# + "\n")
            #expect(upstream.received.isEmpty)
        }
        await upstream.stop()
    }

    @Test("two clients' credentials on a forwarded route never share a plan: each reaches the upstream as sent")
    func forwardedCredentialsAreNotShared() async throws {
        let routes = [
            TestStack.Route(name: "github", mockPath: "/github/items", scheme: .linkHeader(PaginationScheme.LinkHeader())) {
                $0.forwardHeaders = ["Authorization"]
            }
        ]
        try await TestStack.run(routes: routes) { stack in
            for value in ["Bearer alice", "Bearer bob", "Bearer alice"] {
                let response = try await stack.get("/github?mock_total=3", headers: ["Authorization": value])
                #expect(response.status == 200)
            }
            let sent = stack.mock.log.requests.map { request in request.headers.first { $0.name.lowercased() == "authorization" }?.value }
            #expect(sent == ["Bearer alice", "Bearer bob", "Bearer alice"])
        }
    }
}
