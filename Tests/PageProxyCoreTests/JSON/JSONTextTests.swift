import PageProxyCore
import Testing

/// `JSONText` is the package's one JSON string escaper (logs, error bodies, the mock upstream).
@Suite struct JSONTextTests {
    @Test func escapesQuotesBackslashesAndControlCharacters() {
        #expect(JSONText.string("a\"b\\c\nd\re\tf\u{01}g\u{1F}") == #""a\"b\\c\nd\re\tf\u0001g\u001f""#)
    }

    @Test("U+2028 and U+2029 are escaped, so that the JSON stays valid inside JavaScript source")
    func escapesLineAndParagraphSeparators() {
        #expect(JSONText.string("a\u{2028}b\u{2029}c") == #""a\u2028b\u2029c""#)
    }

    @Test func leavesOtherTextAsItIs() {
        #expect(JSONText.string("é 😀 / <>") == "\"é 😀 / <>\"")
    }

    @Test func writesObjectsInFieldOrder() {
        #expect(JSONText.object([("b", 1), ("a", "x"), ("c", .bool(true)), ("d", .json("[1]"))]) == #"{"b":1,"a":"x","c":true,"d":[1]}"#)
    }
}
