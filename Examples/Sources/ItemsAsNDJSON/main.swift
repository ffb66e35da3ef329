// Prints every item of a paginated route as one line of JSON (NDJSON), exactly as the upstream wrote it, through a
// disk cache (a second run makes no upstream request) with up to five retries per walk.
//
//     swift run PageProxy mock                                  # in the repository root: the mock on :8081
//     swift run --package-path Examples ItemsAsNDJSON [URL] [CACHE_DIR] > items.ndjson
//
// The default URL is the mock's Stripe-style route (`has_more` and `starting_after`).

import Foundation
import PageProxyCore

let arguments = Array(CommandLine.arguments.dropFirst())
let address = arguments.first ?? "http://127.0.0.1:8081/stripe/items?limit=100"
let cacheDirectory = arguments.count > 1 ? arguments[1] : FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-example-cache").path
guard let url = PageURL(string: address) else {
    FileHandle.standardError.write(Data("not an http(s) URL: \(address)\n".utf8))
    exit(2)
}

let client = PageProxyClient(
    configuration: .init(
        cache: PageCacheOptions(directory: cacheDirectory, ttl: .seconds(300)), retry: RetryPolicy(budget: 5)))
let source = PaginatedSource(url: url, scheme: .hasMore(.init()), itemsPath: JSONPath(components: [.key("data")]))
var output: [UInt8] = []
var lines = 0
do {
    for try await item in client.items(of: source) {
        output.append(contentsOf: item)
        output.append(UInt8(ascii: "\n"))
        lines += 1
        // Written a page's worth at a time: memory stays bounded whatever the number of items.
        if output.count >= 1 << 16 {
            FileHandle.standardOutput.write(Data(output))
            output.removeAll(keepingCapacity: true)
        }
    }
    FileHandle.standardOutput.write(Data(output))
    FileHandle.standardError.write(Data("\(lines) items\n".utf8))
} catch {
    FileHandle.standardOutput.write(Data(output))
    FileHandle.standardError.write(Data("the walk failed after \(lines) items: \(error)\n".utf8))
    exit(1)
}
