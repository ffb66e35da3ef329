import Testing

@testable import PageProxyCore

/// GraphQL over GET: the cursor and page size as members of the JSON `variables` (`variables.after`,
/// `variables.first`), lifted out and folded back like a Rison `q`'s (real15); a cursor stays a string.
@Suite struct QueryJSONMembersTests {
    private static let members = QueryMembers(names: ["variables.after", "variables.first"], textNames: ["variables.after"], encoding: .json)!

    private static func url(_ query: String?) -> PageURL {
        PageURL(scheme: "http", host: "127.0.0.1", port: 8080, path: "/graphql", query: query)
    }

    @Test("JSON text decodes with members in order, numbers as written, escapes undone, and encodes back compact")
    func decoding() throws {
        let value = try QueryJSONDecoder.decode(#" { "first" : 100, "after": "YXJy\u00e9\ud83d\ude00\n", "f": [true, false, null, -1.5e3], "o": {} } "#)
        #expect(value == .object([
            ("first", .number("100")), ("after", .string("YXJyé😀\n")),
            ("f", .array([.bool(true), .bool(false), .null, .number("-1.5e3")])), ("o", .object([])),
        ]))
        #expect(value.jsonText == #"{"first":100,"after":"YXJyé😀\n","f":[true,false,null,-1.5e3],"o":{}}"#)
    }

    @Test("Text that is no JSON is an error, never a crash", arguments: [
        "", "{", #"{"a":}"#, #"{"a":1,}"#, "[1 2]", "tru", #""\ud800""#, #""\x""#, "01x", "{a:1}", "\"a\u{01}\"",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func invalid(text: String) {
        #expect(throws: RisonDecoder.Invalid.self) { try QueryJSONDecoder.decode(text) }
    }

    @Test("The size and cursor are lifted out of variables; folded back, the cursor is a string even when it is all digits")
    func liftAndFold() throws {
        let lifted = try Self.members.lifting(Self.url(#"query=%7Bx%7D&variables=%7B%22first%22%3A100%2C%22kind%22%3A%22a%20b%22%7D"#))
        #expect(lifted.query == #"query=%7Bx%7D&variables=%7B%22kind%22%3A%22a%20b%22%7D&variables.first=100"#)
        let next = lifted.settingQueryValue("12345", for: "variables.after")
        let sent = try #require(Self.members.folding(next).queryValue("variables"))
        #expect(sent == #"{"kind":"a b","first":100,"after":"12345"}"#)
        #expect(Self.members.folding(next).queryValue("query") == "{x}")
        // No variables at all: made from the members.
        let bare = Self.url("query=%7Bx%7D").settingQueryValue("100", for: "variables.first")
        #expect(Self.members.folding(bare).queryValue("variables") == #"{"first":100}"#)
        // A client's size written 1e2 goes back as that number, not the string "1e2" (retest15); a cursor stays a string.
        let client = try Self.members.lifting(Self.url(#"variables=%7B%22first%22%3A1e2%7D"#)).settingQueryValue("1e2", for: "variables.after")
        #expect(Self.members.folding(client).queryValue("variables") == #"{"first":1e2,"after":"1e2"}"#)
    }

    @Test("A null member is as if absent (GraphQL clients send \"after\": null for the first page); an object is refused in JSON's own spelling")
    func nullMember() throws {
        let lifted = try Self.members.lifting(Self.url(#"variables=%7B%22first%22%3A3%2C%22after%22%3Anull%7D"#))
        #expect(lifted.query == "variables.first=3")
        let error = #expect(throws: QueryMembers.Invalid.self) { try Self.members.lifting(Self.url(#"variables=%7B%22after%22%3A%7B%22x%22%3A1%7D%7D"#)) }
        #expect(error?.message == #"variables's member after must be a number or a string, not {"x":1}"#)
    }

    @Test("variables that are no JSON object are refused", arguments: ["variables=%5B1%5D", "variables=%7B", "variables=%7B%22first%22%3A%5B%5D%7D"])
    func refused(query: String) {
        #expect(throws: QueryMembers.Invalid.self) { try Self.members.lifting(Self.url(query)) }
    }
}
