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

    /// A walk's template (its headers' part built once) gives every page the key its request has.
    @Test(arguments: [[], [("Authorization", "Bearer a")], [("X-B", "2"), ("authorization", "a"), ("X-A", "1"), ("x-a", "0")]])
    func aTemplatesKeyIsTheRequestsKey(headers: [(String, String)]) throws {
        let template = CacheKeyTemplate(headers: HTTPHeaders(headers))
        for url in ["http://api.test/items?page=1", "http://api.test/items?page=2", "https://other.test:8443/x?a=%20"] {
            let request = Self.request(url, headers)
            #expect(template.key(for: request.url, memo: nil) == CacheKey(request, memo: nil))
            #expect(template.key(for: request.url) == CacheKey(request))
        }
    }

    /// Keys hash by their first 16 digits: keys alike there are still different keys, in a set and in a map.
    @Test func keysAlikeInTheirFirstDigitsStayDistinct() throws {
        let head = String(repeating: "ab", count: 8)
        let one = try #require(CacheKey(hex: head + String(repeating: "0", count: 48)))
        let two = try #require(CacheKey(hex: head + String(repeating: "0", count: 47) + "1"))
        let again = try #require(CacheKey(hex: head + String(repeating: "0", count: 48)))
        #expect(one != two)
        #expect(one == again)
        #expect(one.hashValue == two.hashValue)
        #expect(Set([one, two, again]).count == 2)
        let map: [CacheKey: Int] = [one: 1, two: 2]
        #expect(map[again] == 1)
        #expect(map[two] == 2)
    }

    @Test func hexInitAcceptsOnlyKeys() {
        let key = CacheKey(Self.request("http://api.test/x"))
        #expect(CacheKey(hex: key.hex) == key)
        #expect(CacheKey(hex: "../" + String(key.hex.dropFirst(3))) == nil)
        #expect(CacheKey(hex: key.hex.uppercased()) == nil)
        #expect(CacheKey(hex: String(key.hex.dropLast())) == nil)
    }
}

/// `CacheKeyMemo`: a remembered key is the key computed afresh, different inputs never share one, and the memo never
/// holds more than its capacity.
@Suite struct CacheKeyMemoTests {
    private static func request(_ page: Int, _ authorization: String = "a") -> UpstreamRequest {
        UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\(page)")!, headers: HTTPHeaders([("Authorization", authorization)]))
    }

    @Test func aRememberedKeyIsTheComputedOne() {
        let memo = CacheKeyMemo(capacity: 16)
        for page in 1...5 {
            let fresh = CacheKey(Self.request(page), memo: nil)
            #expect(CacheKey(Self.request(page), memo: memo) == fresh)
            #expect(CacheKey(Self.request(page), memo: memo) == fresh)
        }
        #expect(memo.count == 5)
        #expect(CacheKey(Self.request(1, "b"), memo: memo) != CacheKey(Self.request(1, "a"), memo: memo))
        #expect(CacheKey(Self.request(1, "b"), memo: memo) == CacheKey(Self.request(1, "b"), memo: nil))
    }

    @Test func theMemoNeverHoldsMoreThanItsCapacity() {
        let memo = CacheKeyMemo(capacity: 8)
        for page in 1...100 {
            let key = CacheKey(Self.request(page), memo: memo)
            #expect(memo.count <= 8)
            #expect(key == CacheKey(Self.request(page), memo: nil))
        }
        #expect(memo.count >= 1)
    }

    @Test func theKeyIsTheDigestOfItsParts() {
        // The format of keys on disk is unchanged: entries stored before stay readable.
        var hasher = SHA256()
        for part in ["pageproxy-cache-key-v1", "GET", "http://api.test/items?page=1", "authorization", "a"] {
            hasher.update(Array(String(part.utf8.count).utf8) + [0x3A] + Array(part.utf8))
        }
        #expect(CacheKey(Self.request(1), memo: nil).hex == SHA256.hex(hasher.finalize()))
    }
}
