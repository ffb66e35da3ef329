import Foundation
import Testing

@testable import PageProxyCore

/// MLflow's empty list left out (`{}`) and Mastodon's ISO 8601 rate-limit reset (scripts/real-upstreams, real12).
@Suite struct MLflowMastodonWalkTests {
    private static let paths = ScanPaths(
        itemsPath: JSONPath("experiments") ?? .root, valuePaths: [JSONPath("next_page_token") ?? .root, JSONPath("total") ?? .root])

    @Test("a page that leaves its items out and holds nothing, or only the walk's own scalars, is a page of no items",
          arguments: [#"{}"#, #" { } "#, #"{"next_page_token": "eyJvZmZzZXQiOiAxMDB9"}"#, #"{"next_page_token": null, "total": 0}"#])
    func omittedItemsAreNone(body: String) throws {
        let page = try Self.paths.scan(Array(body.utf8))
        #expect(page.items.isEmpty)
        if body.contains("eyJ") {
            #expect(page.values[JSONPath("next_page_token") ?? .root] == .string("eyJvZmZzZXQiOiAxMDB9"))
        }
    }

    @Test("a page with anything else is still an error: a wrong items path, or Slack's 200 that says it failed",
          arguments: [#"{"runs": [{"id": 1}]}"#, #"{"data": {"experiments": []}}"#, #"{"next_page_token": "x", "other": []}"#, #"[]"#,
                      #"{"ok": false, "error": "invalid_auth"}"#, #"{"next_page_token": {"a": 1}}"#])
    func itemsElsewhereAreAnError(body: String) {
        #expect(throws: JSONScanError.self) { _ = try Self.paths.scan(Array(body.utf8)) }
    }

    /// A configured Mailman 3 route, and one that reads no total (an auto walk's single page).
    private static let mailmanPaths = [
        ScanPaths(itemsPath: JSONPath("entries") ?? .root, valuePaths: [JSONPath("total_size") ?? .root]),
        ScanPaths(itemsPath: JSONPath("entries") ?? .root, valuePaths: []),
    ]

    @Test("Mailman 3 leaves entries out of an empty list's page and of a page past the end: a page of scalars stating a total of 0, or a start at or past its total, is a page of no items (real13: a 502 for an empty list)",
          arguments: [#"{"http_etag": "\"8ed9\"", "start": 0, "total_size": 0}"#, #"{"http_etag": "\"8ed9\"", "start": 40, "total_size": 25}"#,
                      #"{"offset": 25, "count": 25}"#])
    func statedEmptyPagesAreNone(body: String) throws {
        for paths in Self.mailmanPaths {
            #expect(try paths.scan(Array(body.utf8)).items.isEmpty)
        }
    }

    @Test("a page that leaves its items out and states more than it holds, or holds an array or object, or a total that is not a number, is still an error",
          arguments: [#"{"http_etag": "\"8ed9\"", "start": 0, "total_size": 25}"#, #"{"start": 0, "total_size": 0, "errors": ["denied"]}"#,
                      #"{"start": 0, "total_size": "0"}"#, #"{"start": 0, "total_size": false}"#, #"{"start": 10, "size": 5}"#])
    func stateMoreIsAnError(body: String) {
        for paths in Self.mailmanPaths {
            #expect(throws: JSONScanError.self) { _ = try paths.scan(Array(body.utf8)) }
        }
    }

    @Test("review18 R7: an error with a 200 that states a count of 0 is still an error, on a walk and to auto; a null or empty error beside it is not",
          arguments: [#"{"error": "rate limited", "count": 0}"#, #"{"ok": false, "count": 0}"#, #"{"success": false, "total": 0}"#,
                      #"{"error_code": 429, "total_size": 0}"#, #"{"error": true, "count": 0}"#])
    func errorsStatingNoItemsAreErrors(body: String) {
        for paths in Self.mailmanPaths {
            #expect(throws: JSONScanError.self) { _ = try paths.scan(Array(body.utf8)) }
        }
        #expect(throws: PaginationError.self) { try SchemeDetector.detect(.json(body), url: PageURL(string: "http://api.test/items")!) }
    }

    @Test(arguments: [#"{"error": null, "count": 0}"#, #"{"ok": true, "error": "", "total": 0}"#])
    func noErrorBesideNoItemsIsAnEmptyList(body: String) throws {
        for paths in Self.mailmanPaths {
            #expect(try paths.scan(Array(body.utf8)).items.isEmpty)
        }
        #expect(try SchemeDetector.detect(.json(body), url: PageURL(string: "http://api.test/items")!).itemCount == 0)
    }

    private static let mlflow = PaginationScheme.cursorInBody(
        .init(cursorPath: JSONPath("next_page_token") ?? .root, cursorParameter: "page_token", sizeParameter: nil))

    @Test("MLflow: a search that matches nothing (`{}`) is an empty answer, not a 502; a token walk ends where the token is absent")
    func mlflowWalk() async throws {
        let empty = FakeTransport { _ in .json("{}") }
        let none = try await PageWalker.items(Self.mlflow, transport: empty) { $0.itemsPath = JSONPath("experiments") ?? .root }
        #expect(none.isEmpty)
        #expect(empty.requestedURLs.count == 1)

        let tokens = FakeTransport { url in
            switch url.queryValue("page_token") {
            case nil: .json("{\n  \"experiments\": [{\"id\": 1}, {\"id\": 2}],\n  \"next_page_token\": \"eyJvZmZzZXQiOiAyfQ==\"\n}")
            case "eyJvZmZzZXQiOiAyfQ==": .json("{\n  \"experiments\": [{\"id\": 3}]\n}")
            default: .json(#"{"error_code": "INVALID_PARAMETER_VALUE"}"#)
            }
        }
        let items = try await PageWalker.items(Self.mlflow, transport: tokens) { $0.itemsPath = JSONPath("experiments") ?? .root }
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == [#"{"id":1}"#, #"{"id":2}"#, #"{"id":3}"#])
        #expect(tokens.requestedURLs.count == 2)
    }

    @Test("RFC 3339 times: Mastodon's X-RateLimit-Reset with microseconds, offsets, lower-case t and z")
    func parsesRFC3339() throws {
        let mastodon = try #require(HTTPDate.parseRFC3339("2026-10-14T19:10:00.483000Z"))
        #expect(abs(mastodon.timeIntervalSince1970 - 1_792_005_000.483) < 0.000_5)
        #expect(HTTPDate.parseRFC3339("2026-10-14T21:10:00+02:00")?.timeIntervalSince1970 == 1_792_005_000)
        #expect(HTTPDate.parseRFC3339("2026-10-14t18:40:00-00:30z") == nil)
        #expect(HTTPDate.parseRFC3339("2026-10-14t18:40:00-00:30")?.timeIntervalSince1970 == 1_792_005_000)
        #expect(HTTPDate.parseRFC3339("2026-10-14t19:10:00z")?.timeIntervalSince1970 == 1_792_005_000)
        for bad in ["2026-10-14", "2026-10-14T19:10:00", "2026-13-14T19:10:00Z", "2026-02-30T19:10:00Z", "2026-10-14T24:10:00Z",
                    "2026-10-14T19:10:00.Z", "2026-10-14T19:10:00+0200", "2026-10-14T19:10:00+02:00x", "２026-10-14T19:10:00Z"] {
            #expect(HTTPDate.parseRFC3339(bad) == nil, "\(bad)")
        }
    }

    @Test("Mastodon: an exhausted X-RateLimit-Remaining with an ISO 8601 reset is a wait until that time")
    func isoResetIsAWait() {
        let now = Date(timeIntervalSince1970: 1_792_004_900)
        let headers = HTTPHeaders([
            ("X-RateLimit-Limit", "300"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "2026-10-14T19:10:00.483000Z"),
        ])
        #expect(RateLimitAdvice.wait(in: headers, now: now) == .seconds(101))
        let signal = RateLimitSignal(status: 200, headers: headers, now: now)
        #expect(signal.remaining == 0)
        let seconds = signal.resetIn.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        #expect(seconds.map { abs($0 - 100.483) < 0.001 } == true, "\(String(describing: seconds))")
    }
}
