import Testing

@testable import PageProxyCore

/// XXH64 against the reference implementation's values (`xxhsum -H1` of Debian's xxhash), across the tail and block paths.
@Suite struct XXHash64Tests {
    @Test(arguments: [
        ("", UInt64(0xEF46_DB37_51D8_E999)),
        ("a", 0xD24E_C4F1_A98C_6E5B),
        ("abc", 0x44BC_2CF5_AD77_0999),
        ("message digest", 0x066E_D728_FCEE_B3BE),
        ("abcdefghijklmnopqrstuvwxyz", 0xCFE1_F278_FA89_835C),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 0xAAA4_6907_D304_7814),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", 0xE04A_477F_19EE_145D),
    ])
    func matchesTheReference(text: String, expected: UInt64) {
        #expect(XXHash64.hash(Array(text.utf8)) == expected)
    }

    @Test func aSeedChangesTheHashAndEveryByteCounts() {
        let bytes = [UInt8](repeating: 7, count: 100)
        #expect(XXHash64.hash(bytes, seed: 1) != XXHash64.hash(bytes))
        for index in [0, 31, 32, 63, 64, 95, 96, 99] {
            var changed = bytes
            changed[index] ^= 1
            #expect(XXHash64.hash(changed) != XXHash64.hash(bytes), "byte \(index)")
        }
        #expect(XXHash64.hash(bytes[...]) == XXHash64.hash(bytes))
    }

    @Test("the hash worked out over pieces (a body read through a small buffer) is the hash of the whole, however it is cut")
    func piecesHashAsTheWhole() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for count in [0, 1, 7, 31, 32, 33, 64, 100, 1000] {
            for piece in [1, 3, 8, 31, 32, 33, 100, 1000] {
                var streaming = XXHash64.Streaming(seed: count == 100 ? 5 : 0)
                var offset = 0
                while offset < count {
                    let end = min(count, offset + piece)
                    bytes[offset..<end].withUnsafeBytes { streaming.update($0) }
                    offset = end
                }
                #expect(streaming.finalize() == XXHash64.hash(bytes[..<count], seed: count == 100 ? 5 : 0), "\(count) bytes in pieces of \(piece)")
            }
        }
    }
}
