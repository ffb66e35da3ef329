import Foundation
import PageProxyCore
import Testing

/// A typed request walked through the public API only: items, raw bytes, pages, and typed errors.
@Suite struct TypedRequestTests {
    private struct StrictIssues: PaginatedRequest {
        struct Item: Decodable, Sendable {
            let id: Int
            let title: String
            let state: String
        }
        var baseURL: PageURL { RepositoryIssues().baseURL }
        var path: String { RepositoryIssues().path }
        var queryItems: [(name: String, value: String)] { RepositoryIssues().queryItems }
        var scheme: PaginationScheme { .linkHeader(.init()) }
    }

    @Test func firstPageURLJoinsBasePathAndEncodedQuery() {
        struct Search: PaginatedRequest {
            typealias Item = Int
            var baseURL: PageURL { PageURL(string: "https://api.test/v3/?key=1")! }
            var path: String { "/search/repositories" }
            var queryItems: [(name: String, value: String)] { [("q", "swift lang&more"), ("sort", "stars")] }
            var scheme: PaginationScheme { .pageNumber(.init()) }
        }
        #expect(Search().firstPageURL.description == "https://api.test/v3/search/repositories?key=1&q=swift%20lang%26more&sort=stars")
    }

    @Test func typedItemsArriveInUpstreamOrder() async throws {
        let upstream = IssuePages(total: 95)
        let client = PageProxyClient(configuration: .init(transport: upstream.transport))
        var issues: [RepositoryIssues.Item] = []
        for try await issue in client.items(of: RepositoryIssues()) { issues.append(issue) }
        #expect(issues == (0..<95).map { RepositoryIssues.Item(id: $0, title: "Issue \($0)") })
        #expect(upstream.requests.count == 10)
        #expect(upstream.requests.allSatisfy { $0.header("authorization") == "Bearer test" })
    }

    @Test func rawItemsAreTheUpstreamBytesCompacted() async throws {
        let upstream = IssuePages(total: 12)
        let client = PageProxyClient(configuration: .init(transport: upstream.transport))
        var items: [String] = []
        for try await bytes in client.rawItems(of: RepositoryIssues()) { items.append(String(decoding: bytes, as: UTF8.self)) }
        #expect(items.count == 12)
        #expect(items.first == #"{"id":0,"title":"Issue 0"}"#)
    }

    @Test func pagesCarryNumberURLStatusAndHeaders() async throws {
        let client = PageProxyClient(configuration: .init(transport: IssuePages(total: 25).transport))
        var seen: [(Int, Int, Int, String?)] = []
        for try await page in client.pages(of: RepositoryIssues()) {
            seen.append((page.number, page.itemCount, page.statusCode, page.header("etag")))
        }
        #expect(seen.map(\.0) == [1, 2, 3])
        #expect(seen.map(\.1) == [10, 10, 5])
        #expect(seen.allSatisfy { $0.2 == 200 })
        #expect(seen.map(\.3) == ["\"p1\"", "\"p2\"", "\"p3\""])
    }

    @Test func anItemThatDoesNotDecodeNamesItsPageURLAndIndex() async throws {
        let client = PageProxyClient(configuration: .init(transport: IssuePages(total: 30).transport))
        var taken = 0
        do {
            for try await _ in client.items(of: StrictIssues()) { taken += 1 }
            Issue.record("the walk should fail: no item has a state")
        } catch .itemDecodingFailed(let failure) {
            #expect(failure.page == 1)
            #expect(failure.index == 0)
            #expect(failure.offset == 0)
            #expect(failure.url.description == "http://api.test/repos/o/r/issues?per_page=10")
            guard case .keyNotFound(let key, let context) = failure.error else {
                Issue.record("expected keyNotFound, got \(failure.error)")
                return
            }
            #expect(key.stringValue == "state")
            #expect(context.codingPath.isEmpty)
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(taken == 0)
    }

    @Test func aFailureOnALaterPageCountsTheItemsBefore() async throws {
        struct Item: Decodable { let id: Int }
        let upstream = IssuePages(total: 30) { request, _ in
            guard request.url.queryValue("page") == "2" else { return nil }
            let body = #"[{"id": 10}, {"id": 11}, {"id": "twelve"}]"#
            return PageResponse(statusCode: 200, headers: [("Link", #"<http://api.test/repos/o/r/issues?page=3>; rel="next""#)], body: Array(body.utf8))
        }
        let client = PageProxyClient(configuration: .init(transport: upstream.transport))
        var ids: [Int] = []
        let error = await #expect(throws: PaginationError.self) {
            for try await item in client.items(of: RepositoryIssues().source, as: Item.self) { ids.append(item.id) }
        }
        guard case .itemDecodingFailed(let failure) = error else {
            Issue.record("expected itemDecodingFailed, got \(String(describing: error))")
            return
        }
        #expect((failure.page, failure.index, failure.offset) == (2, 2, 12))
        #expect(error?.page == 2)
        #expect(error?.code == "item_decoding_failed")
        #expect(ids == Array(0..<10))
    }

    @Test func aTransportFailureIsUpstreamFailedWithThePage() async throws {
        let transport = PageTransport { request throws(UpstreamError) in
            throw .connectFailed(origin: request.url.origin.description, reason: "refused")
        }
        let client = PageProxyClient(configuration: .init(transport: transport, retry: RetryPolicy(budget: 0)))
        let error = await #expect(throws: PaginationError.self) {
            for try await _ in client.items(of: RepositoryIssues()) {}
        }
        guard case .upstreamFailed(let page, _, .connectFailed(let origin, _)) = error else {
            Issue.record("expected upstreamFailed(connectFailed), got \(String(describing: error))")
            return
        }
        #expect(page == 1)
        #expect(origin == "http://api.test")
        #expect(error?.code == "upstream_unreachable")
    }
}
