import PageProxyCore
import Synchronization

/// A GitHub-style upstream behind an injected transport: `/repos/o/r/issues?page=N&per_page=M`, items
/// `{"id":…,"title":…}`, `Link` headers with `next` and `last`. It records every request it answers.
final class IssuePages: Sendable {
    let total: Int
    let pageSize: Int
    private let log = Mutex<[PageRequest]>([])
    private let answer: @Sendable (PageRequest, Int) -> PageResponse?

    /// - Parameter answer: answers a request instead of the pages when it returns non-nil (faults, 304s).
    init(total: Int, pageSize: Int = 10, answer: @escaping @Sendable (PageRequest, Int) -> PageResponse? = { _, _ in nil }) {
        self.total = total
        self.pageSize = pageSize
        self.answer = answer
    }

    var requests: [PageRequest] { log.withLock { $0 } }

    var transport: PageTransport {
        PageTransport { request throws(UpstreamError) in self.respond(to: request) }
    }

    static func body(ids: Range<Int>) -> String {
        "[" + ids.map { #"{"id": \#($0), "title": "Issue \#($0)"}"# }.joined(separator: ", ") + "]"
    }

    private func respond(to request: PageRequest) -> PageResponse {
        let count = log.withLock { log in
            log.append(request)
            return log.count
        }
        if let response = answer(request, count) { return response }
        let page = Int(request.url.queryValue("page") ?? "1") ?? 1
        let pages = max(1, (total + pageSize - 1) / pageSize)
        let ids = min(total, (page - 1) * pageSize)..<min(total, page * pageSize)
        var links = [#"<\#(url(page: pages))>; rel="last""#]
        if page < pages { links.insert(#"<\#(url(page: page + 1))>; rel="next""#, at: 0) }
        return PageResponse(
            statusCode: 200, headers: [("Content-Type", "application/json"), ("Link", links.joined(separator: ", ")), ("ETag", "\"p\(page)\"")],
            body: Array(Self.body(ids: ids).utf8))
    }

    private func url(page: Int) -> String {
        "http://api.test/repos/o/r/issues?page=\(page)&per_page=\(pageSize)"
    }
}

/// The typed request the tests walk: a repository's issues, GitHub-style.
struct RepositoryIssues: PaginatedRequest {
    struct Item: Decodable, Equatable, Sendable {
        let id: Int
        let title: String
    }

    var baseURL: PageURL { PageURL(scheme: "http", host: "api.test", port: 80, path: "/", query: nil) }
    var path: String { "/repos/o/r/issues" }
    var queryItems: [(name: String, value: String)] { [("per_page", "10")] }
    var headers: [(name: String, value: String)] { [("Authorization", "Bearer test")] }
    var scheme: PaginationScheme { .linkHeader(.init()) }
}
