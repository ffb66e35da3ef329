// Typed decoding benchmark (issue 16): `client.items(of: request)` against decoding the merged array with JSONDecoder.
//
//     swift run -c release DecodeBench [repetitions] [pages] [items-per-page]
//
// An in-memory upstream (an injected PageTransport) serves GitHub-style issue pages with Link headers. Measured,
// median of the repetitions, in the same process, one after another:
//   typed     client.items(of: request): walk the pages and decode each page's items as [Issue] (the library path)
//   merged    client.rawItems(of: request) spliced into one JSON array, then JSONDecoder().decode([Issue].self)
//   decode    JSONDecoder().decode([Issue].self) of the merged array prepared before the clock starts (no walk)
//   per-item  client.rawItems(of: request) with JSONDecoder().decode(Issue.self) per item (the old items(of:as:))

import Foundation
import PageProxyCore

struct Issue: Decodable, Sendable {
    struct User: Decodable, Sendable {
        let login: String
        let id: Int
    }
    let id: Int
    let number: Int
    let title: String
    let state: String
    let user: User
    let labels: [String]
    let comments: Int
    let created_at: String
    let body: String?
}

struct IssuesRequest: PaginatedRequest {
    typealias Item = Issue
    let perPage: Int
    var baseURL: PageURL { PageURL(scheme: "http", host: "bench.test", port: 80, path: "/", query: nil) }
    var path: String { "/repos/o/r/issues" }
    var queryItems: [(name: String, value: String)] { [("per_page", String(perPage))] }
    var scheme: PaginationScheme { .linkHeader(.init()) }
    var limits: WalkLimits { WalkLimits(concurrency: 4, maxPages: 100_000) }
}

func issueJSON(_ id: Int) -> String {
    let body = id % 5 == 0 ? "null" : #""Steps to reproduce:\n1. run \"swift build\"\n2. see error \#(id) \u00e9""#
    return #"{"id":\#(1_000_000 + id),"number":\#(id),"title":"Crash in module \#(id % 97) when building with -O","state":"\#(id % 3 == 0 ? "closed" : "open")","user":{"login":"user\#(id % 211)","id":\#(id % 211)},"labels":["bug","compiler","p\#(id % 4)"],"comments":\#(id % 17),"created_at":"2026-11-\#(10 + id % 18)T12:00:00Z","body":\#(body)}"#
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let repetitions = arguments.count > 0 ? arguments[0] : 9
let pageCount = arguments.count > 1 ? arguments[1] : 100
let perPage = arguments.count > 2 ? arguments[2] : 100

let pages: [[UInt8]] = (0..<pageCount).map { page in
    Array(("[" + (0..<perPage).map { issueJSON(page * perPage + $0) }.joined(separator: ",") + "]").utf8)
}
let transport = PageTransport { request throws(UpstreamError) in
    let page = Int(request.url.queryValue("page") ?? "1") ?? 1
    let link = { (page: Int) in "http://bench.test/repos/o/r/issues?per_page=\(perPage)&page=\(page)" }
    var links = [#"<\#(link(pageCount))>; rel="last""#]
    if page < pageCount { links.insert(#"<\#(link(page + 1))>; rel="next""#, at: 0) }
    return PageResponse(statusCode: 200, headers: [("Link", links.joined(separator: ", "))], body: pages[page - 1])
}
let client = PageProxyClient(configuration: .init(transport: transport, retry: RetryPolicy(budget: 0)))
let request = IssuesRequest(perPage: perPage)

func typed() async throws -> Int {
    var count = 0
    for try await issue in client.items(of: request) { count &+= issue.number & 1 | 1 }
    return count
}

func mergedArray() async throws -> [UInt8] {
    var merged: [UInt8] = [UInt8(ascii: "[")]
    var first = true
    for try await item in client.rawItems(of: request) {
        if !first { merged.append(UInt8(ascii: ",")) }
        first = false
        merged.append(contentsOf: item)
    }
    merged.append(UInt8(ascii: "]"))
    return merged
}

func merged() async throws -> Int {
    try JSONDecoder().decode([Issue].self, from: Data(try await mergedArray())).count
}

func perItem() async throws -> Int {
    let decoder = JSONDecoder()
    var count = 0
    for try await item in client.rawItems(of: request) {
        _ = try decoder.decode(Issue.self, from: Data(item))
        count += 1
    }
    return count
}

/// Milliseconds `body` takes.
func time(_ body: () async throws -> Int) async throws -> Double {
    let start = ContinuousClock.now
    _ = try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

let prepared = Data(try await mergedArray())
let totalBytes = pages.reduce(0) { $0 + $1.count }
print("\(pageCount) pages × \(perPage) issues, \(totalBytes / 1000) KB of JSON, \(repetitions) repetitions, interleaved")
let variants: [(name: String, run: () async throws -> Int)] = [
    ("typed", typed), ("merged", merged), ("decode", { try JSONDecoder().decode([Issue].self, from: prepared).count }),
    ("per-item", perItem),
]
// Warm up once, so the first measured run pays no first-use costs.
for variant in variants { _ = try await variant.run() }
// Interleaved (typed, merged, decode, per-item, typed, …): a burst of load from other processes on the machine falls
// on every variant alike rather than on whichever ran at the time.
var times = Array(repeating: [Double](), count: variants.count)
for _ in 0..<repetitions {
    for (index, variant) in variants.enumerated() { times[index].append(try await time(variant.run)) }
}
var medians: [String: Double] = [:]
for (index, variant) in variants.enumerated() {
    let sorted = times[index].sorted()
    medians[variant.name] = sorted[sorted.count / 2]
    print(String(format: "%-9@ median %8.1f ms  best %8.1f ms", variant.name, sorted[sorted.count / 2], sorted[0]))
}
let ratio = { (a: String, b: String) in (medians[a] ?? 0) / (medians[b] ?? 1) }
print(String(format: "typed / merged = %.2f   typed / decode = %.2f   per-item / typed = %.2f",
             ratio("typed", "merged"), ratio("typed", "decode"), ratio("per-item", "typed")))
