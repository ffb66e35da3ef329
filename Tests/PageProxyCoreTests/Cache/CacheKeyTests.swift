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

    @Test("a route's own CA file counts: a page fetched trusting it is not another route's, nor a header's")
    func theCAFileCounts() {
        let url = PageURL(string: "https://api.test/items?page=1")!
        let system = CacheKey(UpstreamRequest(url: url))
        let own = CacheKey(UpstreamRequest(url: url, caFile: "/etc/pageproxy/ca.pem"))
        #expect(own != system)
        #expect(own != CacheKey(UpstreamRequest(url: url, caFile: "/etc/other.pem")))
        #expect(own != CacheKey(UpstreamRequest(url: url, headers: HTTPHeaders([("ca-file", "/etc/pageproxy/ca.pem")]))))
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

    /// Keys are compared by the numbers their digits spell, not their text: a key a digit apart, wherever that digit
    /// is (in every run of 16) and whatever it is, is another key; the same digits are the same key, however made.
    @Test func keysADigitApartAnywhereAreDistinct() throws {
        let digits = Array("0123456789abcdef")
        let base = String(repeating: "0", count: 64)
        let key = try #require(CacheKey(hex: base))
        for position in 0..<64 {
            for digit in digits.dropFirst() {
                var changed = Array(base)
                changed[position] = digit
                let other = try #require(CacheKey(hex: String(changed)))
                #expect(other != key, "digit \(position) as \(digit)")
                #expect(other == CacheKey(hex: String(changed)))
            }
        }
        let made = CacheKey(Self.request("http://api.test/x"))
        #expect(try #require(CacheKey(hex: made.hex)) == made)
        #expect(Set([made, try #require(CacheKey(hex: made.hex)), key]).count == 2)
    }

    @Test func hexInitAcceptsOnlyKeys() {
        let key = CacheKey(Self.request("http://api.test/x"))
        #expect(CacheKey(hex: key.hex) == key)
        #expect(CacheKey(hex: "../" + String(key.hex.dropFirst(3))) == nil)
        #expect(CacheKey(hex: key.hex.uppercased()) == nil)
        #expect(CacheKey(hex: String(key.hex.dropLast())) == nil)
    }

    @Test("one page spelled with its parameters in another order is one key, with or without the memo (attack3 F5)")
    func parameterOrderDoesNotChangeTheKey() {
        let memo = CacheKeyMemo(capacity: 16)
        let guessed = Self.request("http://api.test/items?per_page=10&page=2", [("Authorization", "a")])
        let linked = Self.request("http://api.test/items?page=2&per_page=10", [("Authorization", "a")])
        #expect(CacheKey(guessed, memo: nil) == CacheKey(linked, memo: nil))
        #expect(CacheKey(guessed, memo: memo) == CacheKey(linked, memo: nil))
        #expect(CacheKey(linked, memo: memo) == CacheKey(guessed, memo: memo))
        #expect(CacheKey(guessed, memo: memo) != CacheKey(Self.request("http://api.test/items?page=3&per_page=10", [("Authorization", "a")])))
        #expect(CacheKey(guessed) != CacheKey(Self.request("http://api.test/items?per_page=10&page=2")))
    }

    @Test("the query is keyed sorted by name, stably: repeats of one name keep their order, values are not reordered")
    func canonicalQueryOrder() {
        func canonical(_ url: String) -> String { CacheKey.canonicalURL(PageURL(string: url)!) }
        #expect(canonical("http://api.test/items?per_page=10&page=2") == "http://api.test/items?page=2&per_page=10")
        #expect(canonical("http://api.test/i?b=2&tag=y&a=1&tag=x&a") == "http://api.test/i?a=1&a&b=2&tag=y&tag=x")
        #expect(canonical("http://api.test/i?tag=y&tag=x") == "http://api.test/i?tag=y&tag=x")
        #expect(canonical("http://api.test/i?z=1") == "http://api.test/i?z=1")
        #expect(canonical("http://api.test:8080/i?p%5Bn%5D=2&a=%26") == "http://api.test:8080/i?a=%26&p%5Bn%5D=2")
        #expect(canonical("http://api.test/i") == "http://api.test/i")
        #expect(canonical("http://api.test/i?a=1&") == "http://api.test/i?&a=1")
        #expect(canonical("http://api.test/i?ab=1&a=2") == "http://api.test/i?a=2&ab=1")
        #expect(canonical("http://api.test/i?a=2&ab=1") == "http://api.test/i?a=2&ab=1")
        #expect(canonical("http://api.test/i?%C3%A9=1&z=2&%C3%A9=3") == "http://api.test/i?%C3%A9=1&%C3%A9=3&z=2")
        let repeats = CacheKey(Self.request("http://api.test/i?tag=y&tag=x"), memo: nil)
        #expect(repeats != CacheKey(Self.request("http://api.test/i?tag=x&tag=y"), memo: nil))
    }

    @Test("a query already in order keys as before the canonical order: its stored entries stay readable")
    func sortedQueriesKeepTheirKeys() {
        var hasher = SHA256()
        for part in ["pageproxy-cache-key-v1", "GET", "http://api.test/items?page=2&per_page=10"] {
            hasher.update(Array(String(part.utf8.count).utf8) + [0x3A] + Array(part.utf8))
        }
        let expected = SHA256.hex(hasher.finalize())
        #expect(CacheKey(Self.request("http://api.test/items?page=2&per_page=10"), memo: nil).hex == expected)
        #expect(CacheKey(Self.request("http://api.test/items?per_page=10&page=2"), memo: nil).hex == expected)
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

    @Test("attack7: the memo is keyed by a keyed digest of the input, which keeps no byte of it; inputs a byte apart differ")
    func theMemoKeepsNoCredential() {
        let secret = Array("Authorization: Bearer s3cret".utf8)
        let digest = KeyedDigest(secret)
        #expect(digest == KeyedDigest(secret) && digest.hashValue == KeyedDigest(secret).hashValue)
        #expect(!digest.hex.contains("s3cret") && !String(describing: digest).contains("s3cret"))
        // Every input one byte different (or one byte longer) gets another digest.
        var seen: Set<KeyedDigest> = [digest]
        for index in secret.indices {
            var changed = secret
            changed[index] ^= 1
            seen.insert(KeyedDigest(changed))
        }
        seen.insert(KeyedDigest(secret + [0]))
        #expect(seen.count == secret.count + 2)
        // A sequence without contiguous storage digests as its bytes do.
        #expect(KeyedDigest(secret.lazy.map { $0 }) == digest)
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

/// The bytes a key digests, spelled out here part by part: keys stay those of the entries already on disk.
@Suite struct CacheKeyInputTests {
    private static func part(_ text: String) -> String { "\(text.utf8.count):\(text)" }

    /// A URL and its spelling in the key: its query's parameters in order of name.
    @Test(arguments: [
        ("http://api.test/items?page=2&per_page=10", "http://api.test/items?page=2&per_page=10"),
        ("http://api.test/items?per_page=10&page=2", "http://api.test/items?page=2&per_page=10"),
        ("https://[::1]:8443/x", "https://[::1]:8443/x"), ("http://api.test:8080/a?q=%20", "http://api.test:8080/a?q=%20"),
    ])
    func aKeyDigestsTheVersionMethodURLAndSortedHeaders(url: String, canonical: String) throws {
        let request = UpstreamRequest(url: try #require(PageURL(string: url)), headers: HTTPHeaders([("X-B", "2"), ("Authorization", "a")]))
        let input = Self.part("pageproxy-cache-key-v1") + Self.part("GET") + Self.part(canonical) + Self.part("authorization") + Self.part("a")
            + Self.part("x-b") + Self.part("2")
        let expected = SHA256.hex(SHA256.hash(Array(input.utf8)))
        #expect(CacheKey(request, memo: nil).hex == expected)
        #expect(CacheKeyTemplate(headers: request.headers).key(for: request.url, memo: CacheKeyMemo(capacity: 4)).hex == expected)
    }
}
