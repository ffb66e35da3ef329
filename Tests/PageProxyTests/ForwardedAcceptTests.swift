import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack15 U1: a route forwarding `Accept` sent the client's `application/x-ndjson` (which asks PageProxy for its
/// NDJSON stream) or `text/html` upstream as is; an upstream that honours `Accept` answers 406 or another format. Only
/// a value that admits JSON is forwarded; otherwise the upstream is asked for JSON.
@Suite struct ForwardedAcceptTests {
    /// Each client `Accept`, and what the upstream gets: the value itself when it admits JSON, else nil (the default).
    static let cases: [(accept: String, forwarded: Bool)] = [
        ("application/x-ndjson", false), ("text/html", false), ("application/x-ndjson, text/plain;q=0.5", false),
        ("application/json", true), ("application/vnd.api+json", true), ("application/x-ndjson, application/json;q=0.5", true),
        ("*/*", true),
    ]

    @Test("an Accept that admits JSON is forwarded byte for byte; one that names no JSON type is not: the upstream gets PageProxy's JSON Accept",
          arguments: cases)
    func onlyAJSONAcceptIsForwarded(accept: String, forwarded: Bool) async throws {
        try await CacheTests.run(route: { $0.forwardHeaders = ["Accept"] }) { stack, _ in
            let response = try await stack.get(CacheTests.target, headers: ["Accept": accept])
            #expect(response.status == 200)
            #expect(stack.mock.log.count > 0)
            let sent = stack.mock.log.requests.map { $0.header("Accept") }
            #expect(sent.allSatisfy { $0 == (forwarded ? accept : HTTP1Transport.defaultAccept) }, "\(sent)")
        }
    }
}
