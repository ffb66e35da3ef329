/// XXH64 (xxHash, 64-bit, by Yann Collet): a fast non-cryptographic hash, byte-compatible with the reference.
///
/// Used where a cryptographic hash would only cost time (issue 13): the torn-write check of a cache entry, and a
/// stored page's identity in an aggregate's `ETag`. Nothing here defends against a forger: the cache directory is
/// PageProxy's own (mode 0700), and what is checked is a crash or a bad disk, not an attacker. The cache *key*
/// stays a SHA-256 (it names files from request input).
package enum XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// The hash of `bytes`.
    package static func hash(_ bytes: some Collection<UInt8>, seed: UInt64 = 0) -> UInt64 {
        if let hash = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0), seed: seed) }) { return hash }
        return Array(bytes).withUnsafeBytes { hash($0, seed: seed) }
    }

    /// The hash of the bytes of `buffer`.
    package static func hash(_ buffer: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = buffer.count
        guard let base = buffer.baseAddress, count > 0 else { return avalanche(seed &+ prime5) }
        var offset = 0
        var hash: UInt64
        if count >= 32 {
            var lane1 = seed &+ prime1 &+ prime2
            var lane2 = seed &+ prime2
            var lane3 = seed
            var lane4 = seed &- prime1
            while count - offset >= 32 {
                lane1 = round(lane1, load(base, offset))
                lane2 = round(lane2, load(base, offset + 8))
                lane3 = round(lane3, load(base, offset + 16))
                lane4 = round(lane4, load(base, offset + 24))
                offset += 32
            }
            hash = lane1.rotated(1) &+ lane2.rotated(7) &+ lane3.rotated(12) &+ lane4.rotated(18)
            hash = merge(hash, lane1)
            hash = merge(hash, lane2)
            hash = merge(hash, lane3)
            hash = merge(hash, lane4)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(count)
        return finish(hash, from: base, offset: offset, count: count)
    }

    /// An XXH64 worked out over bytes that arrive in pieces (a body read through a small reused buffer: issue 13,
    /// fourteenth pass), equal to `hash` of all of them at once.
    package struct Streaming {
        private var lanes: (UInt64, UInt64, UInt64, UInt64)
        private let seed: UInt64
        private var total = 0
        /// Up to 31 bytes not yet taken into the lanes (a stripe is 32).
        private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private var pendingCount = 0

        package init(seed: UInt64 = 0) {
            self.seed = seed
            lanes = (seed &+ prime1 &+ prime2, seed &+ prime2, seed, seed &- prime1)
        }

        /// Takes `buffer`'s bytes in.
        package mutating func update(_ buffer: UnsafeRawBufferPointer) {
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
            total += buffer.count
            var offset = 0
            if pendingCount > 0 {
                let taken = min(32 - pendingCount, buffer.count)
                withUnsafeMutableBytes(of: &pending) { $0.baseAddress.unsafelyUnwrapped.advanced(by: pendingCount).copyMemory(from: base, byteCount: taken) }
                pendingCount += taken
                offset = taken
                guard pendingCount == 32 else { return }
                withUnsafeBytes(of: pending) { stripe($0.baseAddress.unsafelyUnwrapped, 0) }
                pendingCount = 0
            }
            while buffer.count - offset >= 32 {
                stripe(base, offset)
                offset += 32
            }
            let left = buffer.count - offset
            if left > 0 {
                withUnsafeMutableBytes(of: &pending) { $0.baseAddress.unsafelyUnwrapped.copyMemory(from: base + offset, byteCount: left) }
                pendingCount = left
            }
        }

        @inline(__always)
        private mutating func stripe(_ base: UnsafeRawPointer, _ offset: Int) {
            lanes.0 = round(lanes.0, load(base, offset))
            lanes.1 = round(lanes.1, load(base, offset + 8))
            lanes.2 = round(lanes.2, load(base, offset + 16))
            lanes.3 = round(lanes.3, load(base, offset + 24))
        }

        /// The hash of every byte taken in.
        package func finalize() -> UInt64 {
            var hash: UInt64
            if total >= 32 {
                hash = lanes.0.rotated(1) &+ lanes.1.rotated(7) &+ lanes.2.rotated(12) &+ lanes.3.rotated(18)
                hash = merge(hash, lanes.0)
                hash = merge(hash, lanes.1)
                hash = merge(hash, lanes.2)
                hash = merge(hash, lanes.3)
            } else {
                hash = seed &+ prime5
            }
            hash &+= UInt64(total)
            let count = pendingCount
            return withUnsafeBytes(of: pending) { finish(hash, from: $0.baseAddress.unsafelyUnwrapped, offset: 0, count: count) }
        }
    }

    /// The tail (the last bytes from `offset`, fewer than 32), then the final avalanche.
    private static func finish(_ start: UInt64, from base: UnsafeRawPointer, offset start0: Int, count: Int) -> UInt64 {
        var hash = start
        var offset = start0
        while count - offset >= 8 {
            hash ^= round(0, load(base, offset))
            hash = hash.rotated(27) &* prime1 &+ prime4
            offset += 8
        }
        if count - offset >= 4 {
            hash ^= UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) &* prime1
            hash = hash.rotated(23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash ^= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &* prime5
            hash = hash.rotated(11) &* prime1
            offset += 1
        }
        return avalanche(hash)
    }

    private static func avalanche(_ start: UInt64) -> UInt64 {
        var hash = start
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }

    @inline(__always)
    private static func load(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        (accumulator &+ input &* prime2).rotated(31) &* prime1
    }

    @inline(__always)
    private static func merge(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* prime1 &+ prime4
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotated(_ bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
}
