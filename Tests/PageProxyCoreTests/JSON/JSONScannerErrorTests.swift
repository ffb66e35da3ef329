import Testing

@testable import PageProxyCore

@Suite struct JSONScannerErrorTests {
    @Test func invalidEscapeIsRejected() {
        #expect(scanError(#"["a\xb"]"#) == .invalidEscape(offset: 3))
        #expect(scanError(#"["\'"]"#) == .invalidEscape(offset: 2))
        #expect(scanError(#"["\u12G4"]"#) == .invalidUnicodeEscape(offset: 2))
        #expect(scanError(#"["\u12"]"#) == .invalidUnicodeEscape(offset: 2))
    }

    /// attack11 L1: RFC 8259 §8.2 allows a lone surrogate escape (ES2019's `JSON.stringify` writes one); an item
    /// holding one is copied byte-exact, and a string PageProxy reads decodes it to U+FFFD.
    @Test func loneSurrogatesAreAcceptedAndCopiedExactly() throws {
        for item in [#""\ud83d""#, #""\ud83dx""#, #""\ud83d\n""#, #""\ud83d\u0041""#, #""\ud83d\ud83d""#, #""ab\ude00""#,
            #""\ude00\ud83d""#, #"{"s":"\ud800"}"#]
        {
            #expect(try splicedItems("[\(item),1]") == [item, "1"])
        }
        let page = try scanPage(#"{"next":"a\ud800b\udc00\ud83d\ude00\ud800\u0041","items":[]}"#, items: "items", values: ["next"])
        #expect(page.values[JSONPath("next")!] == .string("a\u{FFFD}b\u{FFFD}😀\u{FFFD}A"))
        // Still four hex digits after `\u`.
        #expect(scanError(#"["\ud80"]"#) == .invalidUnicodeEscape(offset: 2))
        #expect(scanError(#"["\ud800\u12G4"]"#) == .invalidUnicodeEscape(offset: 8))
    }

    @Test func everyTruncationOfAValidDocumentThrows() throws {
        let document = #"{"items":[{"id":1,"name":"caf\u00e9 😀 \ud83d\ude00","tags":["a","b"],"n":-12.5e+3,"ok":true,"no":false,"x":null}],"next":{"cursor":"abc"},"e":[],"o":{}}"#
        let bytes = Array(document.utf8)
        _ = try JSONScanner().scan(bytes, itemsAt: JSONPath("items")!)
        for length in 0..<bytes.count {
            let error = scanError(Array(bytes[..<length]), items: "items")
            #expect(error != nil, "prefix of \(length) bytes was accepted")
        }
        // The same truncated at every offset of a root array with scalars.
        let array = Array(#"[true,false,null,0,-1.5E-7,"s\t",[],{}]"#.utf8)
        for length in 0..<array.count {
            #expect(scanError(Array(array[..<length])) != nil, "prefix of \(length) bytes was accepted")
        }
    }

    @Test func truncationReportsUnexpectedEnd() {
        #expect(scanError("") == .unexpectedEnd(offset: 0))
        #expect(scanError("   ") == .unexpectedEnd(offset: 3))
        #expect(scanError("[1,") == .unexpectedEnd(offset: 3))
        #expect(scanError(#"{"a""#) == .unexpectedEnd(offset: 4))
        #expect(scanError(#"["abc"#) == .unexpectedEnd(offset: 5))
        #expect(scanError("[tru") == .unexpectedEnd(offset: 4))
        #expect(scanError("[-") == .unexpectedEnd(offset: 2))
    }

    @Test func deepNestingThrowsTooDeepInsteadOfOverflowing() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 10_000) + [UInt8](repeating: UInt8(ascii: "]"), count: 10_000)
        #expect(scanError(deep) == .tooDeep(limit: 512, offset: 512))
        let objects = Array(String(repeating: #"{"a":"#, count: 10_000).utf8)
        #expect(scanError(objects, items: "a") == .tooDeep(limit: 512, offset: 512 * 5))
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 10) + [UInt8](repeating: UInt8(ascii: "]"), count: 10)
        #expect(scanError(bytes, maxDepth: 10) == nil)
        #expect(scanError(bytes, maxDepth: 9) == .tooDeep(limit: 9, offset: 9))
    }

    @Test func trailingGarbageIsRejected() {
        #expect(scanError("[1] x") == .trailingData(offset: 4))
        #expect(scanError("[1][2]") == .trailingData(offset: 3))
        #expect(scanError(#"{"items":[]}}"#, items: "items") == .trailingData(offset: 12))
        #expect(scanError([UInt8(ascii: "["), UInt8(ascii: "]"), 0]) == .trailingData(offset: 2))
    }

    @Test func trailingCommasAreRejected() {
        #expect(scanError("[1,]") == .unexpectedByte(UInt8(ascii: "]"), offset: 3))
        #expect(scanError(#"{"items":[],}"#, items: "items") == .unexpectedByte(UInt8(ascii: "}"), offset: 12))
        #expect(scanError("[,1]") == .unexpectedByte(UInt8(ascii: ","), offset: 1))
        #expect(scanError("[1,,2]") == .unexpectedByte(UInt8(ascii: ","), offset: 3))
        #expect(scanError("[1 2]") == .unexpectedByte(UInt8(ascii: "2"), offset: 3))
    }

    @Test func numbersOutsideTheGrammarAreRejected() {
        #expect(scanError("[01]") == .invalidNumber(offset: 1))
        #expect(scanError("[-01]") == .invalidNumber(offset: 1))
        #expect(scanError("[1.]") == .invalidNumber(offset: 1))
        #expect(scanError("[1.e5]") == .invalidNumber(offset: 1))
        #expect(scanError("[1e]") == .invalidNumber(offset: 1))
        #expect(scanError("[1e+]") == .invalidNumber(offset: 1))
        #expect(scanError("[-]") == .invalidNumber(offset: 1))
        #expect(scanError("[-a]") == .invalidNumber(offset: 1))
        #expect(scanError("[.5]") == .unexpectedByte(UInt8(ascii: "."), offset: 1))
        #expect(scanError("[+1]") == .unexpectedByte(UInt8(ascii: "+"), offset: 1))
        #expect(scanError("[0x10]") == .unexpectedByte(UInt8(ascii: "x"), offset: 2))
        #expect(scanError("[1.5.2]") == .unexpectedByte(UInt8(ascii: "."), offset: 4))
    }

    @Test func nanAndInfinityAreRejected() {
        #expect(scanError("[NaN]") == .unexpectedByte(UInt8(ascii: "N"), offset: 1))
        #expect(scanError("[Infinity]") == .unexpectedByte(UInt8(ascii: "I"), offset: 1))
        #expect(scanError("[-Infinity]") == .invalidNumber(offset: 1))
    }

    @Test func badLiteralsAreRejected() {
        #expect(scanError("[tru]") == .invalidLiteral(offset: 1))
        #expect(scanError("[nul]") == .invalidLiteral(offset: 1))
        #expect(scanError("[falsy]") == .invalidLiteral(offset: 1))
        #expect(scanError("[True]") == .unexpectedByte(UInt8(ascii: "T"), offset: 1))
        #expect(scanError("[truex]") == .unexpectedByte(UInt8(ascii: "x"), offset: 5))
    }

    @Test func controlCharactersInStringsAreRejected() {
        #expect(scanError("[\"a\nb\"]") == .controlCharacterInString(offset: 3))
        #expect(scanError("[\"a\tb\"]") == .controlCharacterInString(offset: 3))
        #expect(scanError([0x5B, 0x22, 0x00, 0x22, 0x5D]) == .controlCharacterInString(offset: 2))
        #expect(scanError([0x5B, 0x22, 0x1F, 0x22, 0x5D]) == .controlCharacterInString(offset: 2))
        // DEL (0x7F) is allowed raw.
        #expect(scanError([0x5B, 0x22, 0x7F, 0x22, 0x5D]) == nil)
    }

    @Test func invalidUTF8IsRejected() {
        func string(_ middle: [UInt8]) -> [UInt8] { [0x5B, 0x22] + middle + [0x22, 0x5D] }
        #expect(scanError(string([0xC0, 0xAF])) == .invalidUTF8(offset: 2))  // overlong '/'
        #expect(scanError(string([0xC1, 0xBF])) == .invalidUTF8(offset: 2))  // overlong
        #expect(scanError(string([0xE0, 0x80, 0xAF])) == .invalidUTF8(offset: 2))  // overlong 3-byte
        #expect(scanError(string([0xF0, 0x80, 0x80, 0xAF])) == .invalidUTF8(offset: 2))  // overlong 4-byte
        #expect(scanError(string([0xED, 0xA0, 0x80])) == .invalidUTF8(offset: 2))  // U+D800 encoded
        #expect(scanError(string([0xED, 0xBF, 0xBF])) == .invalidUTF8(offset: 2))  // U+DFFF encoded
        #expect(scanError(string([0xF4, 0x90, 0x80, 0x80])) == .invalidUTF8(offset: 2))  // U+110000
        #expect(scanError(string([0xF5, 0x80, 0x80, 0x80])) == .invalidUTF8(offset: 2))
        #expect(scanError(string([0xFF])) == .invalidUTF8(offset: 2))
        #expect(scanError(string([0x80])) == .invalidUTF8(offset: 2))  // lone continuation
        #expect(scanError(string([0xE2, 0x82])) == .invalidUTF8(offset: 2))  // truncated sequence
        #expect(scanError(string([0x61, 0xC3])) == .invalidUTF8(offset: 3))  // truncated before the quote
        #expect(scanError(string([0xF0, 0x9F, 0x98])) == .invalidUTF8(offset: 2))
        #expect(scanError([0x5B, 0x22, 0xE2, 0x82]) == .unexpectedEnd(offset: 4))  // input ends mid-sequence
        // Boundaries that are valid.
        #expect(scanError(string([0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80])) == nil)
        #expect(scanError(string([0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF])) == nil)
        // Long ASCII runs around a bad byte, to exercise the eight-byte fast path.
        #expect(scanError(string(Array("abcdefghijklmnop".utf8) + [0xC0, 0x80] + Array("qrstuvwxyz".utf8))) == .invalidUTF8(offset: 18))
    }

    @Test("a UTF-16 body is named as one: JSON between systems is UTF-8 (RFC 8259 §8.1)")
    func aUTF16BodyIsNamed() {
        for mark: [UInt8] in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            let error = scanError(mark + [0x5B, 0x00, 0x5D, 0x00])
            #expect(error == .unexpectedByte(mark[0], offset: 0))
            #expect(error?.description.contains("UTF-16") == true)
        }
        #expect(scanError([0x5B, 0xFF, 0x5D])?.description.contains("UTF-16") == false)
    }

    @Test func bytesAboveASCIIOutsideStringsAreRejected() {
        #expect(scanError([0x5B, 0xC3, 0xA9, 0x5D]) == .unexpectedByte(0xC3, offset: 1))
        // A byte order mark is skipped before the document only (JSONScannerTests); after a space it is a stray byte.
        #expect(scanError([0x20, 0xEF, 0xBB, 0xBF, 0x5B, 0x5D]) == .unexpectedByte(0xEF, offset: 1))
    }

    @Test func unquotedKeysAreRejected() {
        #expect(scanError("{items:[]}", items: "items") == .unexpectedByte(UInt8(ascii: "i"), offset: 1))
        #expect(scanError(#"{"a" 1}"#) == .unexpectedByte(UInt8(ascii: "1"), offset: 5))
        #expect(scanError(#"{"a":1 "b":2}"#) == .unexpectedByte(UInt8(ascii: "\""), offset: 7))
        #expect(scanError(#"{1:2}"#) == .unexpectedByte(UInt8(ascii: "1"), offset: 1))
    }

    @Test func singleQuotesAreRejected() {
        #expect(scanError("['a']") == .unexpectedByte(UInt8(ascii: "'"), offset: 1))
        #expect(scanError("{'a':1}") == .unexpectedByte(UInt8(ascii: "'"), offset: 1))
    }

    @Test func mismatchedBracketsAreRejected() {
        #expect(scanError("[1}") == .unexpectedByte(UInt8(ascii: "}"), offset: 2))
        #expect(scanError(#"{"a":1]"#) == .unexpectedByte(UInt8(ascii: "]"), offset: 6))
        #expect(scanError("]") == .unexpectedByte(UInt8(ascii: "]"), offset: 0))
    }

    @Test func errorsDescribeThemselves() {
        #expect(JSONScanError.unexpectedByte(UInt8(ascii: "}"), offset: 17).description == "invalid JSON at byte 17: unexpected '}'")
        #expect(JSONScanError.unexpectedByte(0x0A, offset: 3).description == "invalid JSON at byte 3: unexpected byte 0x0A")
        #expect(JSONScanError.tooDeep(limit: 512, offset: 512).description == "invalid JSON at byte 512: nested deeper than 512 levels")
        #expect(JSONScanError.itemsNotFound(path: "data").description == "no items at path 'data'")
        #expect(
            JSONScanError.itemsNotAnArray(path: "data", found: "an object").description
                == "items at path 'data' are not an array but an object")
    }
}
