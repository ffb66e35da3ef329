import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 14, decided: `null` at the items path is a page with no items (APIs write it for "nothing here"); a missing
/// path or a value that is not an array is an upstream the route does not describe, a 502.
@Suite struct ItemsPathValueTests {
    private static func answer(to body: String, format: String = "json") async throws -> RawHTTPClient.Response {
        let upstream = try ChangingUpstream()
        upstream.set(body: body, cacheControl: nil)
        let response = try await TestStack.run(routes: []) { config in
            var route = upstream.route
            route.itemsPath = JSONPath("items")!
            config.routes = [route]
        } _: { stack in
            try await stack.get("/changing?_format=\(format)")
        }
        await upstream.stop()
        return response
    }

    @Test("null at the items path is a page with no items", arguments: ["json", "ndjson"])
    func nullItemsAreNoItems(format: String) async throws {
        let response = try await Self.answer(to: #"{"items":null,"total":0}"#, format: format)
        #expect(response.status == 200)
        #expect(response.text == (format == "json" ? "[]" : ""))
    }

    @Test("a missing items path, or one that is not an array, is a 502 upstream_invalid_json", arguments: [
        #"{"data":[1,2]}"#, #"{"items":{"a":1}}"#, #"{"items":"none"}"#, #"{"items":0}"#, #"{"items":false}"#,
    ])
    func missingOrNonArrayItemsAreA502(body: String) async throws {
        let response = try await Self.answer(to: body)
        #expect(response.status == 502)
        #expect(response.text.contains("\"code\":\"upstream_invalid_json\""))
    }
}
