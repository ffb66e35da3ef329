import Testing

@testable import PageProxyCore

/// `_fields`: selected members copied byte for byte, nested as in the source, without decoding the items.
@Suite struct FieldSelectionTests {
    private func project(_ body: String, _ fields: String) throws -> String {
        let bytes = Array(body.utf8)
        let page = Page(
            number: 1, url: PageURL(string: "http://api.test/items")!, status: .ok, headers: HTTPHeaders(), body: bytes,
            items: try JSONScanner().scan(bytes, itemsAt: .root).items, values: [:])
        let projected = try FieldSelection(parsing: fields).project(page)
        var output: [UInt8] = []
        MergedJSONBodyFraming.append(projected, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    @Test func keepsTheSelectedMembersInTheItemsOrder() throws {
        #expect(try project(#"[{"id":1,"name":"a","x":true},{"name":"b","id":2}]"#, "name,id") == #"[{"id":1,"name":"a"},{"name":"b","id":2}]"#)
    }

    @Test func nestedPathsKeepTheirNesting() throws {
        let body = #"[{"id":1,"owner":{"login":"x","site_admin":false,"plan":{"name":"pro","seats":3}},"z":0}]"#
        #expect(try project(body, "id,owner.login,owner.plan.name") == #"[{"id":1,"owner":{"login":"x","plan":{"name":"pro"}}}]"#)
        // A whole member absorbs a deeper path through it, in either order.
        #expect(try project(body, "owner.login,owner") == #"[{"owner":{"login":"x","site_admin":false,"plan":{"name":"pro","seats":3}}}]"#)
    }

    @Test func aMissingFieldIsLeftOutAndSoIsAParentWithoutIt() throws {
        let body = #"[{"id":1,"owner":null},{"id":2,"owner":{"name":"n"}},{"id":3},{"id":4,"owner":"text"},{"id":5,"owner":{"login":"y"}}]"#
        #expect(try project(body, "id,owner.login,missing") == #"[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5,"owner":{"login":"y"}}]"#)
    }

    /// loose12: as `JSON.parse` reads `{"a":1,"b":2,"a":3}` (`{a: 3, b: 2}`), and as the scanner reads a next link.
    @Test func aRepeatedKeysLastOccurrenceIsKeptWhereTheFirstStood() throws {
        #expect(try project(#"[{"a":1,"b":2,"a":3},{"a":4}]"#, "a,b") == #"[{"a":3,"b":2},{"a":4}]"#)
        #expect(try project(#"[{"id":1,"id":2,"a":{"b":1},"a":{"b":2}}]"#, "id,a.b") == #"[{"id":2,"a":{"b":2}}]"#)
        // Nested, and a later parent that forgets an earlier one's members; an unselected repeat changes nothing.
        let body = #"[{"o":{"x":1,"x":2},"z":0,"z":1},{"o":{"x":1},"o":{"y":2}},{"o":{"x":1},"o":null,"id":5}]"#
        #expect(try project(body, "o.x,id") == #"[{"o":{"x":2}},{},{"id":5}]"#)
        // A key spelled with an escape is the same key: the last spelling and value are kept.
        #expect(try project(#"[{"id":1,"id":2}]"#, "id") == #"[{"id":2}]"#)
    }

    @Test func valuesAndKeysAreCopiedByteForByteWithTheirEscapes() throws {
        // Numbers no Double keeps, escapes in values, and a key written with an escape that spells "name".
        let body = #"[{"big":12345678901234567890,"n\u0061me":"a\"b\\c\u00e9 \ud83d\ude00","f":1e400,"nz":-0.0}]"#
        #expect(try project(body, "name,big,nz") == #"[{"big":12345678901234567890,"n\u0061me":"a\"b\\c\u00e9 \ud83d\ude00","nz":-0.0}]"#)
    }

    @Test func prettyPrintedItemsAreCompactedLikeEveryItem() throws {
        let body = "[ {\n  \"id\" : 1 ,\n  \"tags\" : [ \"a b\" , 2 ],\n  \"o\" : { \"k\" : { \"deep\" : [ 1 ] } }\n} ]"
        #expect(try project(body, "tags,o.k") == #"[{"tags":["a b",2],"o":{"k":{"deep":[1]}}}]"#)
    }

    @Test func itemsThatAreNotObjectsAreKeptWhole() throws {
        #expect(try project(#"[1,"two",[3],null,{"id":5,"x":6},{}]"#, "id") == #"[1,"two",[3],null,{"id":5},{}]"#)
    }

    @Test func valuesThatLookLikeStructureInsideStringsDoNotConfuseTheWalk() throws {
        let body = #"[{"a":"},{\"id\":9}","b":["]",{"id":8}],"id":7}]"#
        #expect(try project(body, "id") == #"[{"id":7}]"#)
    }

    @Test func spacesAroundNamesAreIgnored() throws {
        #expect(try FieldSelection(parsing: " id , owner.login ").description == "id,owner.login")
    }

    @Test(
        "a malformed selection says why",
        arguments: [
            ("", "is empty"), ("id,,name", "empty field at position 2"), ("id,", "empty field at position 2"), ("owner..login", "empty step"),
            (".id", "empty step"), ("owner.", "empty step"),
        ])
    func malformedSelections(text: String, reason: String) {
        #expect {
            try FieldSelection(parsing: text)
        } throws: { error in
            (error as? FieldSelection.Invalid)?.description.contains(reason) == true
        }
    }

    @Test func selectionsAreBounded() {
        let many = (0...FieldSelection.maxFields).map { "f\($0)" }.joined(separator: ",")
        #expect(throws: FieldSelection.Invalid.self) { try FieldSelection(parsing: many) }
        let deep = (0...FieldSelection.maxDepth).map { "k\($0)" }.joined(separator: ".")
        #expect(throws: FieldSelection.Invalid.self) { try FieldSelection(parsing: deep) }
    }
}

/// The merged framing of one page, for these tests.
private enum MergedJSONBodyFraming {
    static func append(_ page: Page, to output: inout [UInt8]) {
        var framing = MergedJSONBody()
        framing.append(page, to: &output)
        output += framing.closing()
    }
}
