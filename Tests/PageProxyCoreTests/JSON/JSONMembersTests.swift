import PageProxyCore
import Testing

/// `JSONMembers` lists a page's top-level keys by skipping values (attack14 H1: `JSONSerialization` over a whole page
/// took ~3 KB an item), so hostile values must be skipped exactly and keys read as a JSON parser reads them.
@Suite struct JSONMembersTests {
    private func members(_ text: String) -> [JSONMembers.Member]? {
        JSONMembers.of(Array(text.utf8))
    }

    private func keys(_ text: String) -> [String]? {
        members(text)?.map(\.key)
    }

    @Test func listsKeysKindsAndValueRanges() throws {
        let text = #" {"a": 1, "b" : [ {"x":1} ], "c":{"d":[]}, "e":"s", "f":null, "g":-1.5e3, "h":true} "#
        let found = try #require(members(text))
        #expect(found.map(\.key) == ["a", "b", "c", "e", "f", "g", "h"])
        #expect(found.map(\.kind) == [.scalar, .array, .object, .scalar, .scalar, .scalar, .scalar])
        let bytes = Array(text.utf8)
        #expect(found.map { String(decoding: bytes[$0.range], as: UTF8.self) }
            == ["1", #"[ {"x":1} ]"#, #"{"d":[]}"#, #""s""#, "null", "-1.5e3", "true"])
    }

    @Test("brackets, braces, quotes and commas inside strings do not end a value; escapes in keys are decoded")
    func stringsAreSkippedWhole() {
        let text = #"{"a\"b": "]}\",{", "c\\": ["[", "\\", {"}": "]"}], "\u00e9\ud83d\ude00": {"k": "\"}"}, "last": 0}"#
        #expect(keys(text) == ["a\"b", "c\\", "é😀", "last"])
    }

    @Test("nesting far deeper than any parser's stack is skipped by counting, not recursion")
    func deepNesting() throws {
        let depth = 200_000
        let text = #"{"deep": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            + #", "items": [{"id": 1}]}"#
        let found = try #require(members(text))
        #expect(found.map(\.key) == ["deep", "items"])
        #expect(found.first?.range.count == 2 * depth)
    }

    @Test("a repeated key is listed once, with its last value, as the scanner reads it")
    func repeatedKeyKeepsTheLast() throws {
        let found = try #require(members(#"{"a": [1], "b": 2, "a": {"x": 3}}"#))
        #expect(found.map(\.key) == ["a", "b"])
        #expect(found.first?.kind == .object)
    }

    @Test("a UTF-8 byte order mark is skipped; {} has no members")
    func markAndEmpty() {
        #expect(JSONMembers.of([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8))?.map(\.key) == ["a"])
        #expect(keys(" { } ") == [])
    }

    @Test("not an object, or cut short: nil, never a trap", arguments: [
        "[1, 2]", "\"s\"", "12", "", "{", #"{"a""#, #"{"a":"#, #"{"a": [1, 2"#, #"{"a": "open"#, #"{"a": 1"#, #"{"a" 1}"#,
        #"{a: 1}"#, #"{"a": 1 "b": 2}"#, #"{"a": "\"#,
    ])
    func notAnObject(text: String) {
        #expect(members(text) == nil)
    }
}
