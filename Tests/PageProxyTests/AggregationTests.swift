import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// DESIGN.md "Outputs": every scheme, merged and NDJSON, equal to the mock's ground truth byte for byte.
@Suite struct AggregationTests {
    /// 0 items, less than one page, exactly one page, an exact multiple, a partial last page, many pages.
    static let totals = [0, 3, 10, 20, 25, 250]

    @Test("merged JSON equals the ground truth for every scheme and total", arguments: SchemeRoutes.names)
    func mergedEqualsGroundTruth(route: String) async throws {
        try await TestStack.run { stack in
            for total in Self.totals {
                let response = try await stack.get("/\(route)?mock_total=\(total)")
                #expect(response.status == 200, "\(route) total \(total): \(response.text)")
                #expect(response.body == MockDataset.mergedJSON(total: total), "\(route) total \(total)")
                #expect(response.header("Content-Type") == "application/json; charset=utf-8")
                #expect(response.header("PageProxy-Items") == String(total))
            }
        }
    }

    @Test("NDJSON equals the ground truth for every scheme and total", arguments: SchemeRoutes.names)
    func ndjsonEqualsGroundTruth(route: String) async throws {
        try await TestStack.run { stack in
            for total in Self.totals {
                let response = try await stack.get("/\(route)?mock_total=\(total)&_format=ndjson")
                #expect(response.status == 200, "\(route) total \(total): \(response.text)")
                #expect(response.body == MockDataset.ndjson(total: total), "\(route) total \(total)")
                #expect(response.header("Content-Type") == "application/x-ndjson")
                // Streamed as the pages arrive; an answer whose one page ended the walk is complete before its first
                // byte, and has a length instead (not an offset route's with no total: a short first page asks the
                // next, real18 F1b).
                if total > SchemeRoutes.pageSize || (route == "offset" && total > 0) {
                    #expect(response.header("Transfer-Encoding") == "chunked", "\(route) total \(total)")
                } else if total < SchemeRoutes.pageSize {
                    #expect(response.header("Transfer-Encoding") == nil, "\(route) total \(total)")
                    #expect(response.header("Content-Length") == String(response.body.count), "\(route) total \(total)")
                }
            }
        }
    }

    @Test func acceptHeaderAsksForNDJSON() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?mock_total=25", headers: ["Accept": "application/x-ndjson"])
            #expect(response.body == MockDataset.ndjson(total: 25))
        }
    }

    @Test func maxItemsAndMaxPagesCutTheWalkShort() async throws {
        try await TestStack.run { stack in
            let items = try await stack.get("/github?mock_total=250&_max_items=15")
            #expect(items.body == Array("[".utf8) + MockDataset.items(total: 15).joined(separator: [UInt8(ascii: ",")]) + Array("]".utf8))
            #expect(items.header("PageProxy-Truncated") == "true")
            let pages = try await stack.get("/plain?mock_total=250", headers: ["PageProxy-Max-Pages": "2"])
            #expect(pages.body == Array("[".utf8) + MockDataset.items(total: 20).joined(separator: [UInt8(ascii: ",")]) + Array("]".utf8))
            #expect(pages.header("PageProxy-Pages") == "2")
        }
    }

    @Test func invalidControlIsA400() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?_format=xml")
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"invalid_control\""))
            #expect(stack.mock.log.count == 0)
        }
    }
}
