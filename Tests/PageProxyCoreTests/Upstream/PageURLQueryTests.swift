import Foundation
import Testing

@testable import PageProxyCore

/// Query components: the fast paths (nothing to encode or decode) agree with Foundation's percent-encoding.
@Suite struct PageURLQueryTests {
    @Test(arguments: ["2", "abc-._~XYZ09", "a b", "a&b=c", "é", "%41", "", "100%"])
    func encodingAgreesWithFoundation(text: String) {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        #expect(PageURL.encodeQueryComponent(text) == text.addingPercentEncoding(withAllowedCharacters: allowed))
        #expect(PageURL.decodeQueryComponent(text) == text.removingPercentEncoding)
    }

    @Test func readingAndSettingAParameterRoundTrips() throws {
        let url = try #require(PageURL(string: "http://api.test/items?p%61ge=%32&q=a%20b"))
        #expect(url.queryValue("page") == "2")
        #expect(url.queryValue("q") == "a b")
        let next = url.settingQueryValue("3", for: "page").settingQueryValue("x y", for: "cursor")
        #expect(next.query == "p%61ge=3&q=a%20b&cursor=x%20y")
        #expect(next.queryValue("cursor") == "x y")
    }
}
