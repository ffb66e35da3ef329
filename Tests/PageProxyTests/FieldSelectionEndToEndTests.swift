import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `_fields` over every scheme against the mock, in both outputs: the selected members byte for byte, nested as in
/// the source, escapes kept, missing members left out.
@Suite struct FieldSelectionEndToEndTests {
    static let total = 25
    static let fields = "id,price.amount,text,owner.login,missing"

    /// An oracle written from the mock's data set description, not from the code under test: each item's id, its
    /// price's amount, its escaped text (every 7th), and no owner (null) or missing member.
    static func expectedItem(_ index: Int) -> [UInt8] {
        let id = index + 1
        var text = "{\"id\":\(id),\"price\":{\"amount\":\(id &* 137 % 100_000)}"
        if id % 7 == 0 { text += ",\"text\":\"" + #"a\"b\\c\nd\u00e9 \u2028 \ud83d\ude00 é😀"# + "\"" }
        return Array((text + "}").utf8)
    }

    @Test("merged and NDJSON keep only the selected members", arguments: SchemeRoutes.names)
    func selectedMembers(route: String) async throws {
        try await TestStack.run { stack in
            let merged = try await stack.get("/\(route)?mock_total=\(Self.total)&_fields=\(Self.fields)")
            #expect(merged.status == 200, "\(route): \(merged.text)")
            let items = (0..<Self.total).map(Self.expectedItem)
            #expect(merged.body == [0x5B] + Array(items.joined(separator: [0x2C])) + [0x5D], "\(route)")
            #expect(merged.header("PageProxy-Items") == String(Self.total))
            let streamed = try await stack.get("/\(route)?mock_total=\(Self.total)&_fields=\(Self.fields)&_format=ndjson")
            #expect(streamed.body == Array(items.map { $0 + [0x0A] }.joined()), "\(route)")
        }
    }

    @Test func fieldsAndAWindowTogether() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/wrapped?mock_total=45&_offset=13&_limit=2", headers: ["PageProxy-Fields": "name,id"])
            #expect(response.text == #"[{"id":14,"name":"item-14"},{"id":15,"name":"item-15"}]"#)
        }
    }

    @Test func aMalformedSelectionIsA400ThatSaysWhy() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?_fields=id,,name")
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"invalid_control\""))
            #expect(response.text.contains("empty field at position 2"))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("with the cache warm, each selection keeps its own answer and ETag (memo and tag key on the fields)")
    func theSelectionIsPartOfTheAnswersIdentity() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-fields-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(configure: { $0.cache = CacheConfig(directory: root, maxBytes: 1 << 24) }) { stack in
            let ids = try await stack.get("/github?mock_total=2&_fields=id")
            let names = try await stack.get("/github?mock_total=2&_fields=name")
            let all = try await stack.get("/github?mock_total=2")
            let idsAgain = try await stack.get("/github?mock_total=2&_fields=id")
            #expect(ids.text == #"[{"id":1},{"id":2}]"#)
            #expect(names.text == #"[{"name":"item-1"},{"name":"item-2"}]"#)
            #expect(all.body == MockDataset.mergedJSON(total: 2))
            #expect(idsAgain.body == ids.body)
            #expect(Set([ids.header("ETag"), names.header("ETag"), all.header("ETag")]).count == 3)
            #expect(idsAgain.header("ETag") == ids.header("ETag"))
            #expect(stack.mock.log.count == 1)
        }
    }
}
