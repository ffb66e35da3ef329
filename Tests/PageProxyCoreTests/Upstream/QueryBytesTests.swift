import Foundation
import Testing

@testable import PageProxyCore

/// Query parameters read and set on bytes (`QueryBytes`) give exactly what splitting the query into strings gave
/// (the code before issue 13's second pass, kept here as the reference), and numbered pages spliced into a prepared
/// template are the URLs that setting the parameter builds.
@Suite struct QueryBytesTests {
    /// The string-splitting implementation `PageURL` had, byte for byte.
    enum Reference {
        /// A pair without `=` has no value (nil), and is written back without one (contract22 F3).
        static func pairs(_ query: String?) -> [(name: String, value: String?)] {
            guard let query, !query.isEmpty else { return [] }
            return query.split(separator: "&").map { pair in
                if let equals = pair.firstIndex(of: "=") {
                    return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
                }
                return (String(pair), nil)
            }
        }

        static func value(_ name: String, in query: String?) -> String? {
            pairs(query).first { PageURL.decodeQueryComponent($0.name) == name }.flatMap { PageURL.decodeQueryComponent($0.value ?? "") }
        }

        static func setting(_ value: String, for name: String, in query: String?) -> String {
            let encodedValue = PageURL.encodeQueryComponent(value)
            var replaced = false
            var pairs = pairs(query).compactMap { pair -> (name: String, value: String?)? in
                guard PageURL.decodeQueryComponent(pair.name) == name else { return pair }
                if replaced { return nil }
                replaced = true
                return (pair.name, encodedValue)
            }
            if !replaced { pairs.append((PageURL.encodeQueryComponent(name), encodedValue)) }
            return pairs.map { pair in pair.value.map { "\(pair.name)=\($0)" } ?? pair.name }.joined(separator: "&")
        }
    }

    static let queries: [String?] = [
        nil, "", "page=1", "page=2&per_page=100", "per_page=100&page=7&sort=asc", "page=1&page=2&page=3", "a=1&&b=2", "&page=3&",
        "page", "page&x=1", "page=&x=", "=1&page=2", "page%5Bnumber%5D=3&page%5Bsize%5D=10", "page[number]=3", "q=a%20b&page=4",
        "q=%zz&page=5", "%zz=1&page=6", "q=caf%C3%A9&page=8", "q=café&pagé=1", "q=e\u{301}&page=9", "x==y&page=1=2", "&&&",
        "cursor=abc%3D%3D&page=2", "PAGE=1&page=2", "a=1&b=2&c=3&page=10&d=4&page=11&e=5",
    ]

    static let names = ["page", "per_page", "page[number]", "q", "pagé", "PAGE", "cursor", "a b", "x", "", "%zz", "e\u{301}"]

    static let values = ["1", "42", "-3", "", "a b", "abc==", "é", "page[1]", "9223372036854775807"]

    @Test func readingAParameterGivesWhatSplittingGave() {
        for query in Self.queries {
            let url = PageURL(scheme: "http", host: "api.test", port: 80, path: "/items", query: query)
            for name in Self.names {
                #expect(url.queryValue(name) == Reference.value(name, in: query), "\(query ?? "nil") \(name)")
            }
        }
    }

    /// An integer parameter read off the bytes is what `Int` makes of the decoded value: signs, zeros, the ends of
    /// `Int`'s range and past them, encoded digits, and anything that is no number.
    @Test func readingAnIntegerGivesWhatIntOfTheValueGave() {
        let values = [
            "1", "042", "-3", "+7", "-0", "", "+", "-", "--1", "1a", " 1", "1 ", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "%32", "%2D5", "%zz", "\u{0663}", "1e3", "0x10", "1.0",
        ]
        let queries = Self.queries + values.flatMap { ["page=\($0)", "per_page=10&page=\($0)&page=2", "page%5Bn%5D=\($0)"] }
        for query in queries {
            let url = PageURL(scheme: "http", host: "api.test", port: 80, path: "/items", query: query)
            for name in Self.names + ["page[n]"] {
                #expect(url.integerQueryValue(name) == Reference.value(name, in: query).flatMap { Int($0) }, "\(query ?? "nil") \(name)")
            }
        }
    }

    @Test("setting a parameter leaves a bare parameter bare: `flag` is not `flag=` to every server")
    func aBareParameterStaysBare() {
        let url = PageURL(scheme: "http", host: "api.test", port: 80, path: "/items", query: "z=1&flag&e=&page=2")
        #expect(url.settingQueryValue("3", for: "page").query == "z=1&flag&e=&page=3")
        #expect(url.settingQueryValue("7", for: "per_page").query == "z=1&flag&e=&page=2&per_page=7")
        #expect(url.settingQueryValue("4", for: "flag").query == "z=1&flag=4&e=&page=2")
    }

    @Test func settingAParameterBuildsTheSameQuery() {
        for query in Self.queries {
            let url = PageURL(scheme: "http", host: "api.test", port: 80, path: "/items", query: query)
            for name in Self.names {
                for value in Self.values {
                    let set = url.settingQueryValue(value, for: name)
                    #expect(set.query == Reference.setting(value, for: name, in: query), "\(query ?? "nil") \(name) \(value)")
                    #expect(set.path == "/items" && set.origin == url.origin)
                }
            }
        }
    }

    @Test func numberedPagesSpliceTheNumberIntoTheSameURLs() {
        for query in Self.queries {
            let template = PageURL(scheme: "https", host: "api.test", port: 443, path: "/v1/items", query: query)
            for parameter in ["page", "page[number]", "offset"] {
                let pages = NumberedPages(template: template, parameter: parameter, first: -2, through: 40, step: 7)
                for index in 0..<pages.count {
                    let expected = Reference.setting(String(pages.number(at: index)), for: parameter, in: query)
                    #expect(pages.url(at: index) == template.replacingQuery(expected), "\(query ?? "nil") \(parameter) \(index)")
                }
            }
        }
    }
}
