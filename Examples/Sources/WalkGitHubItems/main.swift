// Walks the mock's GitHub-style route (RFC 8288 Link headers) with a typed request and prints a summary.
//
//     swift run PageProxy mock                                  # in the repository root: the mock on :8081
//     swift run --package-path Examples WalkGitHubItems [BASE_URL]

import Foundation
import PageProxyCore

/// The mock's `/github/items`: pages of 50 items, linked with `Link: <…>; rel="next"` and `rel="last"`.
struct GitHubItems: PaginatedRequest {
    struct Item: Decodable, Sendable {
        struct Price: Decodable, Sendable {
            let amount: Int
            let currency: String
        }
        let id: Int
        let name: String
        let kind: String
        let price: Price
    }

    let baseURL: PageURL
    var path: String { "/github/items" }
    var queryItems: [(name: String, value: String)] { [("per_page", "50")] }
    var headers: [(name: String, value: String)] { [("Accept", "application/json")] }
    var scheme: PaginationScheme { .linkHeader(.init()) }
}

let argument = CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:8081"
guard let baseURL = PageURL(string: argument) else {
    FileHandle.standardError.write(Data("not an http(s) URL: \(argument)\n".utf8))
    exit(2)
}

let client = PageProxyClient()
var count = 0
var euros = 0
var kinds: [String: Int] = [:]
do {
    for try await item in client.items(of: GitHubItems(baseURL: baseURL)) {
        count += 1
        if item.price.currency == "EUR" { euros += item.price.amount }
        kinds[item.kind, default: 0] += 1
    }
} catch .upstreamFailed(let page, let url, let error) {
    FileHandle.standardError.write(Data("page \(page) (\(url.redactedDescription)) could not be fetched: \(error)\n".utf8))
    exit(1)
} catch .itemDecodingFailed(let failure) {
    FileHandle.standardError.write(Data("item \(failure.offset) does not decode: \(failure.error)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("the walk failed: \(error)\n".utf8))
    exit(1)
}
print("\(count) items; \(euros) EUR in all; by kind: \(kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
