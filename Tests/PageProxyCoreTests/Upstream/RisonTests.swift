import Testing

@testable import PageProxyCore

/// Rison as Flask-AppBuilder's `prison` reads and writes it, and a Rison `q`'s page members lifted out of a query (the
/// form a walk numbers) and folded back in (the form sent upstream) without losing the client's other members (real15).
@Suite struct RisonTests {
    @Test("Rison text decodes to its value and encodes back to the same text", arguments: [
        "(filters:!((col:name,opr:ct,value:'a b')),order_column:id,order_direction:desc,page:0,page_size:25)",
        "!t", "!f", "!n", "''", "'it!'s !!'", "-1.5e3", "0", "!()", "()", "!(!(1,2),(a:!n))", "é_x", "'10'", "'-x'", "(a:'x:y')",
    ])
    func roundTrip(text: String) throws {
        let value = try RisonDecoder.decode(text)
        #expect(value.encoded == text)
        #expect(try RisonDecoder.decode(value.encoded) == value)
    }

    @Test("What each form is read as: ids and quoted text are strings, numbers keep their text, !-escapes are undone")
    func values() throws {
        let value = try RisonDecoder.decode("(a:'it!'s',b:12,c:!t,d:!(x,'y z'),e:-0.5,'f g':!n)")
        #expect(value.member("a") == .string("it's"))
        #expect(value.member("b") == .number("12"))
        #expect(value.member("c") == .bool(true))
        #expect(value.member("d") == .array([.string("x"), .string("y z")]))
        #expect(value.member("e") == .number("-0.5"))
        #expect(value.member("f g") == .null)
        // A string that reads as a number, or holds a reserved character, is quoted; an empty one too.
        #expect(QueryValue.string("12").encoded == "'12'")
        #expect(QueryValue.string("a,b").encoded == "'a,b'")
        #expect(QueryValue.string("").encoded == "''")
    }

    /// retest15 N1: `prison` (Flask-AppBuilder, Superset) reads only ASCII letters, digits, `_-./~` and non-ASCII as an
    /// id; a string with any other character went bare (`value:AT&T`) and `prison` failed on it. Such strings are quoted.
    @Test("a string is sent bare only when prison reads it as an id", arguments: Array("&=#?;\"<>[]{}|^`%+\\".unicodeScalars))
    func stringsPrisonCannotReadBareAreQuoted(scalar: Unicode.Scalar) throws {
        let text = "AT" + String(Character(scalar)) + "T"
        let encoded = QueryValue.string(text).encoded
        #expect(encoded.hasPrefix("'") && encoded.hasSuffix("'"), "\(encoded)")
        #expect(try RisonDecoder.decode(encoded) == .string(text))
        #expect(QueryValue.string("a-b_c.d/e~f").encoded == "a-b_c.d/e~f")
        #expect(QueryValue.string("é_x").encoded == "é_x")
    }

    @Test("Text that is no Rison is an error with where, never a crash", arguments: [
        "", "(page:0", "(page 0)", "(page:0,)", "!x", "'abc", "'a!b'", "(:1)", "1.", "-", "1e", "(a:1))", "a b", "!",
        String(repeating: "!(", count: 100) + String(repeating: ")", count: 100),
    ])
    func invalid(text: String) {
        #expect(throws: RisonDecoder.Invalid.self) { try RisonDecoder.decode(text) }
    }

    private static let members = QueryMembers(names: ["q.page", "q.page_size"])!

    private static func url(_ query: String?) -> PageURL {
        PageURL(scheme: "http", host: "127.0.0.1", port: 8080, path: "/api/v1/thing/", query: query)
    }

    @Test("Lifting: the page members become q.page and q.page_size at the end, the client's other members stay in q")
    func lifting() throws {
        let lifted = try Self.members.lifting(Self.url("q=(filters:!((col:name,opr:ct,value:x)),page:2,page_size:100)&x=1"))
        #expect(lifted.query == "q=(filters:!((col:name,opr:ct,value:x)))&x=1&q.page=2&q.page_size=100")
        #expect(lifted.integerQueryValue("q.page") == 2)
        // Nothing else in q: it is left out (folding makes it again).
        #expect(try Self.members.lifting(Self.url("q=(page_size:100)")).query == "q.page_size=100")
        #expect(try Self.members.lifting(Self.url("q=()")).query == nil)
        // No q: as it was. An empty q is none (Flask-AppBuilder reads `?q=` so), left out.
        #expect(try Self.members.lifting(Self.url("page=2")).query == "page=2")
        #expect(try Self.members.lifting(Self.url("q=&x=1")).query == "x=1")
        #expect(try Self.members.lifting(Self.url("q=")).query == nil)
        #expect(try Self.members.lifting(Self.url("q=&q=(page:2)")).query == "q.page=2")
        #expect(try Self.members.lifting(Self.url(nil)).query == nil)
        // Two q (the route's and the client's): the later members over the earlier, in the first one's place.
        #expect(try Self.members.lifting(Self.url("q=(order_column:id,page_size:100)&a=1&q=(page_size:50,keys:!(list_columns))")).query
            == "q=(order_column:id,keys:!(list_columns))&a=1&q.page_size=50")
        // Percent-encoded, with `+` a space as the upstream reads it; written back as rison.js writes it.
        #expect(try Self.members.lifting(Self.url("q=%28order_column%3Aname%2Cfilters%3A%21%28%28col%3Aname%2Copr%3Act%2Cvalue%3A%27a+b%27%29%29%29")).query
            == "q=(order_column:name,filters:!((col:name,opr:ct,value:'a%20b')))")
    }

    @Test("Lifting refuses a q that is no Rison object, or a page member that is no number or string", arguments: [
        "q=(page:0", "q=!(1,2)", "q=abc", "q=(page:(a:1))", "q=(page_size:!(1))", "q=%ZZ",
    ])
    func liftingRefuses(query: String) {
        #expect(throws: QueryMembers.Invalid.self) { try Self.members.lifting(Self.url(query)) }
    }

    @Test("Folding puts the numbered members back into q, in q's place, and leaves a URL without them as it is")
    func folding() throws {
        let lifted = try Self.members.lifting(Self.url("a=1&q=(order_column:id,page_size:100)&b=2"))
        // What a walk does to its next page: set the number on the lifted form.
        let next = lifted.settingQueryValue("3", for: "q.page")
        #expect(next.query == "a=1&q=(order_column:id)&b=2&q.page_size=100&q.page=3")
        #expect(Self.members.folding(next).query == "a=1&q=(order_column:id,page_size:100,page:3)&b=2")
        // No q left after lifting: made at the first member's place.
        let bare = try Self.members.lifting(Self.url("x=1&q=(page:0,page_size:25)"))
        #expect(Self.members.folding(bare).query == "x=1&q=(page:0,page_size:25)")
        // Read back by the upstream's rules: the same members.
        let sent = try #require(Self.members.folding(next).queryValue("q"))
        #expect(try RisonDecoder.decode(sent) == .object([
            ("order_column", .string("id")), ("page_size", .number("100")), ("page", .number("3")),
        ]))
        // Nothing to fold: the URL as it is, byte for byte.
        #expect(Self.members.folding(Self.url("q=(order_column:id)&page=2")).query == "q=(order_column:id)&page=2")
        // A member that is no integer goes back as a string.
        #expect(Self.members.folding(Self.url("q.page=abc")).query == "q=(page:abc)")
        // A client's number in another spelling goes back as the number it wrote (retest15: `'1e2'`, a string).
        for number in ["1e2", "1.5", "-1", "2E-1"] {
            let client = try Self.members.lifting(Self.url("q=(order_column:id,page:\(number))"))
            #expect(Self.members.folding(client).query == "q=(order_column:id,page:\(number))")
        }
        #expect(Self.members.folding(Self.url("q.page=1e")).query == "q=(page:'1e')")
    }

    @Test("The members of one parameter, from the route's dotted names")
    func names() {
        #expect(QueryMembers(names: ["q.page", "q.page_size"]) == Self.members)
        #expect(QueryMembers(names: ["q.page", "per_page"])?.members == ["page"])
        #expect(QueryMembers(names: ["page", "per_page"]) == nil)
        #expect(QueryMembers(names: ["a.page", "b.size"]) == nil)
        #expect(QueryMembers(names: [".page"]) == nil)
        #expect(QueryMembers(names: ["q."]) == nil)
    }
}
