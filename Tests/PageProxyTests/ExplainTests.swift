import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `_explain=1` over every scheme: an account of the walk whose page list is the mock's own request record; and the
/// `Server-Timing` field of merged answers.
@Suite struct ExplainTests {
    private func object(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("the account's fetches are the mock's requests, each with status, cache, bytes, items and retries", arguments: SchemeRoutes.names)
    func fetchesAreTheMocksRequests(route: String) async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/\(route)?mock_total=25&_explain=1")
            #expect(response.status == 200, "\(route): \(response.text)")
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            let account = try object(response)
            #expect(account["route"] as? String == route)
            #expect(account["detected"] as? Bool == false)
            #expect(account["outcome"] as? String == "complete")
            #expect(account["items"] as? Int == 25)
            let fetches = try #require(account["fetches"] as? [[String: Any]])
            let prefix = "http://127.0.0.1:\(stack.mockPort)"
            let explained = fetches.compactMap { ($0["url"] as? String)?.replacingOccurrences(of: prefix, with: "") }
            #expect(explained.sorted() == stack.mock.log.requests.map(\.target).sorted(), "\(route)")
            #expect(fetches.allSatisfy { $0["status"] as? Int == 200 && $0["cache"] as? String == "bypass" && $0["retries"] as? Int == 0 })
            #expect(fetches.compactMap { $0["items"] as? Int }.reduce(0, +) == 25)
            #expect(fetches.allSatisfy { ($0["bytes"] as? Int ?? 0) > 0 && $0["duration_ms"] is Double })
            let path = try #require(account["critical_path"] as? [String: Any])
            #expect((path["pages"] as? [Int])?.first == 1)
        }
    }

    @Test func aWindowIsExplainedWithTheOnlyPagesItNeeds() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/drf?mock_total=45&_offset=20&_limit=5&_explain=1&_fields=id")
            let account = try object(response)
            #expect(account["total"] as? Int == 45)
            #expect(account["fields"] as? String == "id")
            #expect((account["window"] as? [String: Any])?["offset"] as? Int == 20)
            let fetches = try #require(account["fetches"] as? [[String: Any]])
            #expect(fetches.count == 1)
            #expect((fetches.first?["url"] as? String)?.hasSuffix("/drf/items/?mock_total=45&offset=20&limit=10") == true)
            #expect(fetches.first?["items"] as? Int == 5)
        }
    }

    @Test("review9 G1: a page URL past 1,024 bytes is explained cut there, with url_bytes; ordinary ones whole, with none")
    func aLongPageURLIsExplainedCutWithItsLength() async throws {
        try await TestStack.run { stack in
            let pad = String(repeating: "p", count: 3_000)
            let response = try await stack.get("/plain?mock_total=15&pad=\(pad)&_explain=1")
            #expect(response.status == 200, "\(response.text)")
            let fetches = try #require(try object(response)["fetches"] as? [[String: Any]])
            #expect(!fetches.isEmpty)
            let whole = stack.mock.log.requests.map { "http://127.0.0.1:\(stack.mockPort)" + $0.target }
            for fetch in fetches {
                let url = try #require(fetch["url"] as? String)
                #expect(url.utf8.count == 1_024)
                #expect(whole.contains { $0.hasPrefix(url) && $0.utf8.count == fetch["url_bytes"] as? Int })
            }
            let short = try await stack.get("/plain?mock_total=15&_explain=1")
            let shortFetches = try #require(try object(short)["fetches"] as? [[String: Any]])
            #expect(!shortFetches.isEmpty)
            #expect(shortFetches.allSatisfy { $0["url_bytes"] == nil && ($0["url"] as? String)?.contains("mock_total=15") == true })
        }
    }

    @Test("attack7: a walk of more than 1,000 fetches is explained by its first and last 500, the rest counted")
    func aLongWalkIsExplainedByItsEnds() async throws {
        let routes = SchemeRoutes.all.map { route in
            var route = route
            route.maxPages = 2_000
            return route
        }
        try await TestStack.run(routes: routes) { stack in
            let response = try await stack.get("/plain?mock_total=1005&per_page=1&_explain=1")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            let account = try object(response)
            let fetches = try #require(account["fetches"] as? [[String: Any]])
            let omitted = try #require(account["fetches_omitted"] as? [String: Any])
            #expect(fetches.count == 1_000)
            #expect(omitted["count"] as? Int == stack.mock.log.count - 1_000)
            // 1,006 pages: the empty one after the last ends the walk (no total).
            #expect(account["pages"] as? Int == 1_006 && account["items"] as? Int == 1_005)
            #expect(account["outcome"] as? String == "complete")
            // The critical path is still over every fetch: a walk of one page after another.
            let path = try #require((account["critical_path"] as? [String: Any])?["pages"] as? [Int])
            #expect(path.count > 1_000)
        }
    }

    @Test func credentialsAreRedactedAndCacheOutcomesShown() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-explain-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(configure: { $0.cache = CacheConfig(directory: root, maxBytes: 1 << 24) }) { stack in
            _ = try await stack.get("/plain?mock_total=15&access_token=s3cret")
            let response = try await stack.get("/plain?mock_total=15&access_token=s3cret&_explain=1")
            #expect(!response.text.contains("s3cret"))
            #expect(response.text.contains("access_token=REDACTED"))
            let fetches = try #require(try object(response)["fetches"] as? [[String: Any]])
            #expect(fetches.map { $0["cache"] as? String } == ["hit", "hit"])
        }
    }

    @Test func retriesAndAFailedWalkAreExplained() async throws {
        try await TestStack.run { stack in
            let retried = try object(try await stack.get("/plain?mock_total=25&mock_fault=transient500@2&_explain=1"))
            #expect(retried["outcome"] as? String == "complete")
            let fetches = try #require(retried["fetches"] as? [[String: Any]])
            #expect(fetches.map { $0["retries"] as? Int } == [0, 1, 0])
            let response = try await stack.get("/plain?mock_total=25&mock_fault=malformed@2&_explain=1")
            #expect(response.status == 200, "\(response.text)")
            let failed = try object(response)
            #expect(failed["outcome"] as? String == "failed")
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "upstream_invalid_json")
        }
    }

    @Test func anAutoRouteNamesWhatWasDetected() async throws {
        var auto = SchemeRoutes.all[2]
        auto.name = "auto"
        auto.configure = { $0.pagination = .auto(itemsPath: nil) }
        try await TestStack.run(routes: [auto]) { stack in
            let account = try object(try await stack.get("/auto?mock_total=25&_explain=1"))
            #expect(account["scheme"] as? String == "link-header")
            #expect(account["detected"] as? Bool == true)
            #expect(account["items"] as? Int == 25)
        }
    }

    @Test("an auto route detected as page-number counts its first page, fetched at the route's URL before the scheme named it")
    func anAutoRoutesFirstPageIsCounted() async throws {
        var auto = TestStack.Route(name: "auto", mockPath: "/smorest/items", scheme: .pageNumber(.init()))
        auto.configure = { $0.pagination = .auto(itemsPath: nil) }
        try await TestStack.run(routes: [auto]) { stack in
            let answer = try await stack.get("/auto?mock_total=25")
            #expect(answer.status == 200 && answer.header("PageProxy-Scheme") == "auto->page-number")
            let account = try object(try await stack.get("/auto?mock_total=25&_explain=1"))
            #expect(account["scheme"] as? String == "page-number")
            #expect(account["items"] as? Int == 25)
            #expect(account["pages"] as? Int == (answer.header("PageProxy-Pages").flatMap { Int($0) } ?? -1))
        }
    }

    @Test func mergedAnswersCarryServerTiming() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-timing-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(configure: { $0.cache = CacheConfig(directory: root, maxBytes: 1 << 24) }) { stack in
            let pattern = #/^upstream;dur=\d+\.\d, cache;dur=\d+\.\d, total;dur=\d+\.\d$/#
            let cold = try await stack.get("/github?mock_total=25")
            let warm = try await stack.get("/github?mock_total=25")
            for response in [cold, warm] {
                let timing = try #require(response.header("Server-Timing"))
                #expect(timing.wholeMatch(of: pattern) != nil, "\(timing)")
            }
            // The warm answer came from the memo: no time on the upstream.
            #expect(warm.header("Server-Timing")?.hasPrefix("upstream;dur=0.0,") == true)
        }
    }
}
