import Testing

@testable import PageProxyCore

/// Scans `text` and returns the page.
func scanPage(_ text: String, items: String = "", values: [String] = [], maxDepth: Int = 512) throws -> ScannedPage {
    let paths = values.map { JSONPath($0)! }
    return try JSONScanner(maxDepth: maxDepth).scan(Array(text.utf8), itemsAt: JSONPath(items)!, values: paths)
}

/// The items of `text` at `items`, each spliced with `appendItem`, as strings.
func splicedItems(_ text: String, items: String = "") throws -> [String] {
    let bytes = Array(text.utf8)
    let page = try JSONScanner().scan(bytes, itemsAt: JSONPath(items)!)
    return page.items.map { item in
        var output: [UInt8] = []
        JSONScanner.appendItem(item, of: bytes, to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}

/// The error thrown when scanning `bytes`, or nil when it is accepted.
func scanError(_ bytes: [UInt8], items: String = "", maxDepth: Int = 512) -> JSONScanError? {
    do {
        _ = try JSONScanner(maxDepth: maxDepth).scan(bytes, itemsAt: JSONPath(items)!)
        return nil
    } catch {
        return error
    }
}

func scanError(_ text: String, items: String = "") -> JSONScanError? {
    scanError(Array(text.utf8), items: items)
}

@Suite struct JSONScannerItemsTests {
    @Test("a UTF-8 byte order mark before the document is skipped; items stay byte-exact; one anywhere else is an error (attack12 U6)")
    func aByteOrderMarkBeforeTheDocumentIsSkipped() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let bytes = mark + Array(#"{"total":2,"items":[{"a":1},"x"]}"#.utf8)
        let page = try JSONScanner().scan(bytes, itemsAt: JSONPath("items")!, values: [JSONPath("total")!])
        let items = page.items.map { item in
            var output: [UInt8] = []
            JSONScanner.appendItem(item, of: bytes, to: &output)
            return String(decoding: output, as: UTF8.self)
        }
        #expect(items == [#"{"a":1}"#, #""x""#])
        #expect(page.values[JSONPath("total")!] == .number("2"))
        #expect(scanError(mark) != nil)
        #expect(scanError(Array(" ".utf8) + mark + Array("[]".utf8)) != nil)
        #expect(scanError(mark + mark + Array("[]".utf8)) != nil)
    }

    @Test func findsItemsOfARootArray() throws {
        #expect(try splicedItems(#"[1, "two", {"three":3}, [4], null, true]"#) == [
            "1", #""two""#, #"{"three":3}"#, "[4]", "null", "true",
        ])
    }

    @Test func findsItemsUnderItemsKey() throws {
        let text = #"{"count":2,"items":[{"id":1},{"id":2}],"next":null}"#
        #expect(try splicedItems(text, items: "items") == [#"{"id":1}"#, #"{"id":2}"#])
    }

    @Test func findsItemsUnderDataKey() throws {
        let text = #"{"data":[{"id":"a"},{"id":"b"},{"id":"c"}],"links":{"next":"/p2"}}"#
        #expect(try splicedItems(text, items: "data") == [#"{"id":"a"}"#, #"{"id":"b"}"#, #"{"id":"c"}"#])
    }

    @Test func findsItemsAtNestedPath() throws {
        let text = #"{"a":{"x":[9],"b":[{"k":[1,2]},3]},"b":[7]}"#
        #expect(try splicedItems(text, items: "a.b") == [#"{"k":[1,2]}"#, "3"])
    }

    @Test func findsItemsThroughArrayIndex() throws {
        let text = #"{"pages":[{"rows":[1]},{"rows":[2,3]}]}"#
        #expect(try splicedItems(text, items: "pages.1.rows") == ["2", "3"])
    }

    @Test func itemRangesPointAtTheElementBytes() throws {
        let text = #"{"items": [ {"id":1} ,  "s" ]}"#
        let bytes = Array(text.utf8)
        let page = try JSONScanner().scan(bytes, itemsAt: JSONPath("items")!)
        #expect(page.items.count == 2)
        #expect(page.items.map { String(decoding: bytes[$0.range], as: UTF8.self) } == [#"{"id":1}"#, #""s""#])
        #expect(page.items.allSatisfy { $0.isCompact })
    }

    @Test func emptyItemsArrayYieldsNoItems() throws {
        #expect(try scanPage(#"{"items":[]}"#, items: "items").items.isEmpty)
        #expect(try scanPage("[ \n ]").items.isEmpty)
    }

    @Test func nullItemsYieldNoItems() throws {
        #expect(try scanPage(#"{"items":null,"more":false}"#, items: "items").items.isEmpty)
    }

    @Test func missingItemsThrowItemsNotFound() {
        #expect(scanError(#"{"data":[1]}"#, items: "items") == .itemsNotFound(path: "items"))
        #expect(scanError(#"{"a":{"c":[1]}}"#, items: "a.b") == .itemsNotFound(path: "a.b"))
        #expect(scanError(#"{"a":[1]}"#, items: "a.3") == .itemsNotFound(path: "a.3"))
        #expect(scanError(#"{"a":1}"#, items: "a.b") == .itemsNotFound(path: "a.b"))
    }

    @Test func nonArrayItemsThrowItemsNotAnArray() {
        #expect(scanError(#"{"items":{"id":1}}"#, items: "items") == .itemsNotAnArray(path: "items", found: "an object"))
        #expect(scanError(#"{"items":"x"}"#, items: "items") == .itemsNotAnArray(path: "items", found: "a string"))
        #expect(scanError(#"{"items":3}"#, items: "items") == .itemsNotAnArray(path: "items", found: "a number"))
        #expect(scanError(#"{"items":true}"#, items: "items") == .itemsNotAnArray(path: "items", found: "a boolean"))
        #expect(scanError(#"{"items":1}"#) == .itemsNotAnArray(path: "$", found: "an object"))
    }

    @Test func syntaxErrorsTakePrecedenceOverMissingItems() {
        #expect(scanError(#"{"data":[1,]}"#, items: "items") == .unexpectedByte(UInt8(ascii: "]"), offset: 11))
    }

    /// The last occurrence of a repeated key wins, as in `JSON.parse` and Python's `json` (loose12; the first did).
    @Test func lastDuplicateKeyWinsForItems() throws {
        #expect(try splicedItems(#"{"items":[1],"items":[2,3]}"#, items: "items") == ["2", "3"])
        #expect(try splicedItems(#"{"a":{"x":1},"a":{"b":[2]},"b":[3]}"#, items: "b") == ["3"])
        #expect(try splicedItems(#"{"a":{"x":1},"a":{"b":[2]}}"#, items: "a.b") == ["2"])
        #expect(scanError(#"{"a":{"b":[2]},"a":{"x":1}}"#, items: "a.b") == .itemsNotFound(path: "a.b"))
        #expect(scanError(#"{"items":[1],"items":"no"}"#, items: "items") == .itemsNotAnArray(path: "items", found: "a string"))
    }

    @Test func arraysNestedInItemsAreNotItems() throws {
        #expect(try splicedItems(#"[[1,[2]],[[3]]]"#) == ["[1,[2]]", "[[3]]"])
    }

    @Test func escapedKeysMatchPaths() throws {
        #expect(try splicedItems(#"{"it\u0065ms":[1]}"#, items: "items") == ["1"])
        #expect(try splicedItems(#"{"caf\u00e9":[2]}"#, items: "café") == ["2"])
    }
}

@Suite struct JSONScannerValueTests {
    @Test func readsStringWithEscapesUnescaped() throws {
        let page = try scanPage(#"{"items":[],"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\ud83d\ude00"}"#, items: "items", values: ["s"])
        #expect(page.values[JSONPath("s")!] == .string("a\"b\\c/d\u{8}\u{C}\n\r\té€😀"))
    }

    @Test func readsNumberTextExactly() throws {
        let page = try scanPage(
            #"{"items":[],"a":1e400,"b":12345678901234567890,"c":-0.0e-0,"d":1.50}"#, items: "items",
            values: ["a", "b", "c", "d"])
        #expect(page.values[JSONPath("a")!] == .number("1e400"))
        #expect(page.values[JSONPath("b")!] == .number("12345678901234567890"))
        #expect(page.values[JSONPath("c")!] == .number("-0.0e-0"))
        #expect(page.values[JSONPath("d")!] == .number("1.50"))
    }

    @Test func readsBoolsAndNull() throws {
        let page = try scanPage(#"{"items":[],"t":true,"f":false,"n":null}"#, items: "items", values: ["t", "f", "n"])
        #expect(page.values[JSONPath("t")!] == .bool(true))
        #expect(page.values[JSONPath("f")!] == .bool(false))
        #expect(page.values[JSONPath("n")!] == .null)
    }

    @Test func readsNestedCursor() throws {
        let text = #"{"ok":true,"members":[{"id":"U1"}],"response_metadata":{"next_cursor":"dXNlcjpVMEc5V0ZYTlo="}}"#
        let page = try scanPage(text, items: "members", values: ["response_metadata.next_cursor", "ok"])
        #expect(page.values[JSONPath("response_metadata.next_cursor")!] == .string("dXNlcjpVMEc5V0ZYTlo="))
        #expect(page.values[JSONPath("ok")!] == .bool(true))
        #expect(page.items.count == 1)
    }

    @Test func readsIndexPaths() throws {
        let text = #"{"data":[{"id":"first","n":[10,20]},{"id":"second"}]}"#
        let page = try scanPage(text, items: "data", values: ["data.0.id", "data.1.id", "data.0.n.1", "data.2.id"])
        #expect(page.values[JSONPath("data.0.id")!] == .string("first"))
        #expect(page.values[JSONPath("data.1.id")!] == .string("second"))
        #expect(page.values[JSONPath("data.0.n.1")!] == .number("20"))
        #expect(page.values[JSONPath("data.2.id")!] == nil)
    }

    @Test func missingPathsAreAbsent() throws {
        let page = try scanPage(#"{"items":[],"a":{"b":1}}"#, items: "items", values: ["x", "a.c", "a.b.c", "items.0"])
        #expect(page.values.isEmpty)
    }

    @Test func containersAreGivenByRange() throws {
        let text = #"{"items":[1,2,3],"links":{"next":"/2"}}"#
        let bytes = Array(text.utf8)
        let page = try JSONScanner().scan(bytes, itemsAt: JSONPath("items")!, values: [JSONPath("items")!, JSONPath("links")!, .root])
        #expect(page.values[JSONPath("items")!] == .array(9..<16, count: 3))
        #expect(page.values[JSONPath("links")!] == .object(25..<38))
        #expect(page.values[.root] == .object(0..<39))
        #expect(page.items.count == 3)
    }

    @Test func lastDuplicateKeyWinsForValues() throws {
        let page = try scanPage(
            #"{"items":[],"a":1,"a":2,"b":{"c":1,"e":5},"b":{"c":2,"d":3}}"#, items: "items", values: ["a", "b.c", "b.d", "b.e", "b"])
        #expect(page.values[JSONPath("a")!] == .number("2"))
        #expect(page.values[JSONPath("b.c")!] == .number("2"))
        #expect(page.values[JSONPath("b.d")!] == .number("3"))
        // The earlier `b` is gone as a whole, as `JSON.parse` forgets it.
        #expect(page.values[JSONPath("b.e")!] == nil)
        #expect(page.values[JSONPath("b")!] == .object(46..<59))
        // Inside an item too (has-more's last id).
        let bytes = Array(#"{"id":1,"id":"x"}"#.utf8)
        #expect(try JSONScanner().value(in: bytes, range: 0..<bytes.count, at: JSONPath("id")!) == .string("x"))
    }

    @Test func indexComponentMatchesNumericObjectKey() throws {
        let page = try scanPage(#"{"items":[],"m":{"0":"zero"}}"#, items: "items", values: ["m.0"])
        #expect(page.values[JSONPath("m.0")!] == .string("zero"))
    }

    @Test func readsValueInsideAnItem() throws {
        let text = #"{"items":[{"id":1},{"id":"x\n","meta":{"id":7}}]}"#
        let bytes = Array(text.utf8)
        let scanner = JSONScanner()
        let page = try scanner.scan(bytes, itemsAt: JSONPath("items")!)
        let last = try #require(page.items.last)
        #expect(try scanner.value(in: bytes, range: last.range, at: JSONPath("id")!) == .string("x\n"))
        #expect(try scanner.value(in: bytes, range: last.range, at: JSONPath("meta.id")!) == .number("7"))
        #expect(try scanner.value(in: bytes, range: last.range, at: JSONPath("meta")!) == .object(38..<46))
        #expect(try scanner.value(in: bytes, range: last.range, at: JSONPath("nope")!) == nil)
        #expect(try scanner.value(in: bytes, range: page.items[0].range, at: JSONPath("id")!) == .number("1"))
    }

    @Test func manyValuePathsAreAllResolved() throws {
        let members = (0..<100).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let page = try scanPage("{\"items\":[],\(members)}", items: "items", values: (0..<100).map { "k\($0)" })
        #expect(page.values.count == 100)
        #expect(page.values[JSONPath("k99")!] == .number("99"))
        #expect(page.values[JSONPath("k0")!] == .number("0"))
    }
}

@Suite struct JSONScannerSplicingTests {
    @Test func bracketsAndQuotesInsideStringsStayInTheItem() throws {
        let item = #"{"a":"]},[{","b":"\"quoted\" \\ back\\","c":["[",{"}":"{"}]}"#
        #expect(try splicedItems("[\(item),2]") == [item, "2"])
    }

    @Test func lineSeparatorEscapesAndRawPassThrough() throws {
        let item = "{\"escaped\":\"a\\u2028b\\u2029c\",\"raw\":\"a\u{2028}b\u{2029}c\"}"
        #expect(try splicedItems("[\(item)]") == [item])
    }

    @Test func surrogatePairsPassThrough() throws {
        let item = #"{"escaped":"\ud83d\ude00\uD834\uDD1E","raw":"😀𝄞"}"#
        #expect(try splicedItems("[\(item)]") == [item])
    }

    @Test func numbersPassThroughExactly() throws {
        #expect(try splicedItems("[1e400, 12345678901234567890,-0.0e-0,1E+2,0.000001]") == [
            "1e400", "12345678901234567890", "-0.0e-0", "1E+2", "0.000001",
        ])
    }

    @Test func prettyPrintedItemsAreCompactedWithoutTouchingStrings() throws {
        let text = """
            {
              "items" : [
                {
                  "name" : "two  spaces\\nand an escaped newline",
                  "tags" : [ "a b" , "\\t" ],
                  "nested" : {\t"x" :\r\n 1 }
                },
                [ ]
              ]
            }
            """
        let bytes = Array(text.utf8)
        let page = try JSONScanner().scan(bytes, itemsAt: JSONPath("items")!)
        #expect(page.items.map(\.isCompact) == [false, false])
        #expect(try splicedItems(text, items: "items") == [
            #"{"name":"two  spaces\nand an escaped newline","tags":["a b","\t"],"nested":{"x":1}}"#, "[]",
        ])
    }

    @Test func compactItemsAreCopiedAsIs() throws {
        let text = #"[ {"a":"x y"} , "s p" ]"#
        let bytes = Array(text.utf8)
        let page = try JSONScanner().scan(bytes, itemsAt: .root)
        #expect(page.items.map(\.isCompact) == [true, true])
        var output: [UInt8] = Array("prefix:".utf8)
        JSONScanner.appendItem(page.items[0], of: bytes, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:{"a":"x y"}"#)
    }

    @Test func compactedItemsAreAppendedAfterExistingOutput() throws {
        let text = "[\n  { \"a\" : \"x  y\\\\\" ,\n    \"b\" : [ 1 , 2 ] },\n  {\"long string without specials\" : \"0123456789 abcdefghij \\u00e9 klmnop\"}\n]"
        let bytes = Array(text.utf8)
        let page = try JSONScanner().scan(bytes, itemsAt: .root)
        var output: [UInt8] = Array("[".utf8)
        JSONScanner.appendItem(page.items[0], of: bytes, to: &output)
        output.append(UInt8(ascii: ","))
        JSONScanner.appendItem(page.items[1], of: bytes, to: &output)
        output.append(UInt8(ascii: "]"))
        #expect(
            String(decoding: output, as: UTF8.self)
                == #"[{"a":"x  y\\","b":[1,2]},{"long string without specials":"0123456789 abcdefghij \u00e9 klmnop"}]"#)
    }

    @Test func splicedItemsNeverContainRawNewlines() throws {
        let text = "[\n  {\n    \"a\": [\n      1,\n      2\n    ]\n  },\n  \"x\"\n]\n"
        let spliced = try splicedItems(text)
        #expect(spliced == [#"{"a":[1,2]}"#, #""x""#])
        #expect(spliced.allSatisfy { !$0.contains("\n") })
    }

    @Test func whitespaceAroundTheDocumentIsAllowed() throws {
        #expect(try splicedItems(" \t\r\n[1]\n\n ") == ["1"])
    }
}
