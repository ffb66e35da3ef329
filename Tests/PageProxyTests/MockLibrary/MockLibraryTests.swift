import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PageProxyMock
import Testing

/// The mock as a user's Swift test sees it: `import PageProxyMock` (not `@testable`), `MockUpstream.start`, a plain
/// HTTP client, and the request count as evidence.
@Suite struct MockLibraryTests {
    @Test func aUsersTestStartsTheMockOnAFreePortAndWalksItsPages() async throws {
        let upstream = try MockUpstream.start(options: MockUpstreamOptions(totalItems: 25, pageSize: 10))
        var next: URL? = URL(string: upstream.baseURL + "/github/items")
        var pages = 0
        while let url = next, pages < 10 {
            let (data, response) = try await URLSession.shared.data(from: url)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(data.first == UInt8(ascii: "["))
            pages += 1
            // GitHub's habit: the next page is the `Link` header's rel="next".
            next = (http.value(forHTTPHeaderField: "Link") ?? "").components(separatedBy: ", ")
                .first { $0.hasSuffix("rel=\"next\"") }
                .flatMap { URL(string: String($0.dropFirst().prefix { $0 != ">" })) }
        }
        #expect(pages == 3)
        #expect(upstream.requestCount == 3)
        #expect(upstream.requestTargets.first == "/github/items")
        await upstream.stop()
    }

    @Test func aPortInUseIsAnErrorThatSaysSo() async throws {
        let first = try MockUpstream.start()
        #expect(throws: MockUpstreamStartError.self) { _ = try MockUpstream.start(port: first.port) }
        await first.stop()
    }
}
