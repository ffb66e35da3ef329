import Testing

@testable import PageProxyCore

/// Keys: every sent header counts, spelling of names and field order do not, and no key can name another path.
@Suite struct CacheKeyTests {
    private static func request(_ url: String, _ headers: [(String, String)] = []) -> UpstreamRequest {
        UpstreamRequest(url: PageURL(string: url)!, headers: HTTPHeaders(headers))
    }

    @Test func twoAuthorizationValuesNeverShareAKey() {
        let alice = CacheKey(Self.request("http://api.test/items?page=1", [("Authorization", "Bearer alice")]))
        let bob = CacheKey(Self.request("http://api.test/items?page=1", [("Authorization", "Bearer bob")]))
        let nobody = CacheKey(Self.request("http://api.test/items?page=1"))
        #expect(alice != bob)
        #expect(alice != nobody)
        #expect(bob != nobody)
    }

    @Test func fullURLCounts() {
        let one = CacheKey(Self.request("http://api.test/items?page=1"))
        #expect(one != CacheKey(Self.request("http://api.test/items?page=2")))
        #expect(one != CacheKey(Self.request("http://api.test:8080/items?page=1")))
        #expect(one != CacheKey(Self.request("https://api.test/items?page=1")))
        #expect(one != CacheKey(Self.request("http://other.test/items?page=1")))
    }

    @Test func headerNameCaseAndFieldOrderDoNotCount() {
        let one = CacheKey(Self.request("http://api.test/x", [("Authorization", "a"), ("X-Tenant", "t")]))
        let two = CacheKey(Self.request("http://api.test/x", [("x-tenant", "t"), ("AUTHORIZATION", "a")]))
        #expect(one == two)
    }

    @Test func headerBoundariesCannotBeShifted() {
        // "a" + "bc" must not collide with "ab" + "c".
        let one = CacheKey(Self.request("http://api.test/x", [("X-A", "bc")]))
        let two = CacheKey(Self.request("http://api.test/x", [("X-Ab", "c")]))
        #expect(one != two)
    }

    @Test func keyIsHexSoNoPathCanEscape() {
        let key = CacheKey(Self.request("http://api.test/../../etc/passwd?x=/../../"))
        #expect(key.hex.utf8.count == 64)
        #expect(key.hex.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(key.fileName == key.hex + ".entry")
        #expect(key.directoryName == String(key.hex.prefix(2)))
    }

    @Test func hexInitAcceptsOnlyKeys() {
        let key = CacheKey(Self.request("http://api.test/x"))
        #expect(CacheKey(hex: key.hex) == key)
        #expect(CacheKey(hex: "../" + String(key.hex.dropFirst(3))) == nil)
        #expect(CacheKey(hex: key.hex.uppercased()) == nil)
        #expect(CacheKey(hex: String(key.hex.dropLast())) == nil)
    }
}
