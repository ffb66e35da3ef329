import Testing

@testable import PageProxyCore

/// SHA-256 against the FIPS 180-4 / NIST example vectors, in one call and fed in pieces.
@Suite struct SHA256Tests {
    static let vectors: [(input: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test(arguments: vectors.indices)
    func matchesKnownVector(_ index: Int) {
        let vector = Self.vectors[index]
        #expect(SHA256.hex(SHA256.hash(Array(vector.input.utf8))) == vector.digest)
    }

    @Test func oneMillionAs() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(SHA256.hash(input)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("pieces, and the one-pass hexadecimal digest, give the digest of one call")
    func piecesGiveTheSameDigestAsOneCall() {
        let input = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let whole = SHA256.hash(input)
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 128, 999, 1000] {
            var hasher = SHA256()
            hasher.update(input[..<split])
            hasher.update(input[split...])
            #expect(hasher.finalize() == whole, "split at \(split)")
        }
        for count in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 150, 1000] {
            let digest = input.prefix(count).withUnsafeBytes { SHA256.hexDigest(of: $0) }
            #expect(digest == SHA256.hex(SHA256.hash(input.prefix(count))), "hexDigest of \(count) bytes")
        }
        var byteByByte = SHA256()
        for byte in input { byteByByte.update([byte]) }
        #expect(byteByByte.finalize() == whole)
    }
}
