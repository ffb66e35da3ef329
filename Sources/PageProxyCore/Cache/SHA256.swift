/// SHA-256 (FIPS 180-4), written here because CryptoKit does not exist on Linux and PageProxy takes no packages.
///
/// It names cache files and checks their contents, and it makes aggregate `ETag`s. Feed bytes with `update` as
/// they arrive, then `finalize()` once.
package struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes of an incomplete 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    package init() {
        pending.reserveCapacity(64)
    }

    /// With no room for a pending block (`hexDigest` keeps none).
    private init(bare: Void) {}

    /// The digest of `bytes` in one call.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Lowercase hexadecimal of a digest (or any bytes).
    package static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `hex(hash(buffer))` in one pass, with no array on the way: the blocks are compressed where they are, the
    /// padded tail on the stack, and the digits written into the string (issue 13, twelfth pass: a cache key after a
    /// restart, a digest of ~150 bytes, made ~7 allocations).
    package static func hexDigest(of buffer: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256(bare: ())
        let whole = buffer.count / 64 * 64
        if let base = buffer.baseAddress {
            for offset in stride(from: 0, to: whole, by: 64) { hasher.compress(base + offset) }
        }
        let rest = buffer.count - whole
        // The rest, 0x80, zeros, and the length in bits: one block, or two when fewer than 9 bytes are left after it.
        let tailCount = rest < 56 ? 64 : 128
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
            guard let tailBase = tail.baseAddress else { return }
            tail.initializeMemory(as: UInt8.self, repeating: 0)
            if rest > 0, let base = buffer.baseAddress { tailBase.copyMemory(from: base + whole, byteCount: rest) }
            tail[rest] = 0x80
            let bits = UInt64(buffer.count) &* 8
            for index in 0..<8 { tail[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bits >> UInt64(index * 8)) }
            for offset in stride(from: 0, to: tailCount, by: 64) { hasher.compress(UnsafeRawPointer(tailBase) + offset) }
        }
        let state = hasher.state
        return String(unsafeUninitializedCapacity: 64) { text in
            let digits: StaticString = "0123456789abcdef"
            let digit = digits.utf8Start
            func put(_ word: UInt32, at index: Int) {
                for nibble in 0..<8 { text[index * 8 + nibble] = digit[Int((word >> UInt32(28 - 4 * nibble)) & 0xf)] }
            }
            put(state.0, at: 0)
            put(state.1, at: 1)
            put(state.2, at: 2)
            put(state.3, at: 3)
            put(state.4, at: 4)
            put(state.5, at: 5)
            put(state.6, at: 6)
            put(state.7, at: 7)
            return 64
        }
    }

    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if handled == nil { update(Array(bytes)) }
    }

    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    package mutating func update(_ buffer: UnsafeRawBufferPointer) {
        length &+= UInt64(buffer.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, buffer.count)
            pending.append(contentsOf: buffer[0..<take])
            offset = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0.baseAddress.unsafelyUnwrapped) }
            pending.removeAll(keepingCapacity: true)
        }
        guard let base = buffer.baseAddress else { return }
        while buffer.count - offset >= 64 {
            compress(base + offset)
            offset += 64
        }
        if offset < buffer.count { pending.append(contentsOf: buffer[offset...]) }
    }

    /// Pads the message and returns the 32-byte digest; the hasher is spent afterwards.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            for offset in stride(from: 0, to: buffer.count, by: 64) { compress(base + offset) }
        }
        pending = []
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in words {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// One 64-byte block (FIPS 180-4 §6.2.2).
    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.constants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[t] &+ w[t]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
                state.7 &+ h
            )
        }
    }

    private static let constants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
