import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Numbers a client chooses reach the pagination arithmetic: they must get a clean answer, never a trapped server.
@Suite struct HostileNumberTests {
    private static let intMax = "9223372036854775807"

    private func merged(_ range: Range<Int>) -> [UInt8] {
        Array("[".utf8) + Array(MockDataset.items(total: range.upperBound)[range]).joined(separator: [UInt8(ascii: ",")]) + Array("]".utf8)
    }

    @Test("limit=Int.max on an offset route is answered, and the server keeps serving")
    func offsetRoute_IntMaxLimit_IsAnsweredAndTheServerKeepsServing() async throws {
        try await TestStack.run { stack in
            // The mock caps its page size at 100: a limit past the route's is not trusted (attack12 L4), so offsets step
            // by what the upstream served, and the whole list comes back (it was the first 100 items under a 200).
            let fromZero = try await stack.get("/drf?mock_total=250&limit=\(Self.intMax)")
            #expect(fromZero.status == 200, "\(fromZero.text)")
            #expect(fromZero.body == merged(0..<250))
            let fromOne = try await stack.get("/drf?mock_total=250&offset=1&limit=\(Self.intMax)")
            #expect(fromOne.status == 200, "\(fromOne.text)")
            #expect(fromOne.body == merged(1..<250))
            let ndjson = try await stack.get("/offset?mock_total=250&offset=7&limit=\(Self.intMax)&_format=ndjson")
            #expect(ndjson.status == 200, "\(ndjson.text)")

            let normal = try await stack.get("/drf?mock_total=25")
            #expect(normal.status == 200)
            #expect(normal.body == MockDataset.mergedJSON(total: 25))
        }
    }

    @Test func offsetRoute_ZeroLimit_IsAJSONError() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/drf?mock_total=25&limit=0")
            #expect((400..<600).contains(response.status))
            #expect(response.text.contains("\"error\""))
            #expect(try await stack.get("/drf?mock_total=25").status == 200)
        }
    }
}
