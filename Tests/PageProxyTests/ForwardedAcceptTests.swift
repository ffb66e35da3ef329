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
    @Test("an Accept that names no JSON type is not forwarded: the upstream gets PageProxy's JSON Accept",
          arguments: ["application/x-ndjson", "text/html", "application/x-ndjson, text/plain;q=0.5"])
    func aNonJSONAcceptIsNotForwarded(accept: String) async throws {
        try await CacheTests.run(route: { $0.forwardHeaders = ["Accept"] }) { stack, _ in
            let response = try await stack.get(CacheTests.target, headers: ["Accept": accept])
            #expect(response.status == 200)
            #expect(stack.mock.log.count > 0)
            let sent = stack.mock.log.requests.map { $0.header("Accept") }
            #expect(sent.allSatisfy { $0 == HTTP1Transport.defaultAccept }, "\(sent)")
        }
    }

    @Test("an Accept that admits JSON is forwarded byte for byte",
          arguments: ["application/json", "application/vnd.api+json", "application/x-ndjson, application/json;q=0.5", "*/*"])
    func aJSONAcceptIsForwarded(accept: String) async throws {
        try await CacheTests.run(route: { $0.forwardHeaders = ["Accept"] }) { stack, _ in
            let response = try await stack.get(CacheTests.target, headers: ["Accept": accept])
            #expect(response.status == 200)
            #expect(stack.mock.log.count > 0)
            let sent = stack.mock.log.requests.map { $0.header("Accept") }
            #expect(sent.allSatisfy { $0 == accept }, "\(sent)")
        }
    }
}
