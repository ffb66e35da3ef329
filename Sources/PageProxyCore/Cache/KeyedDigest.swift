/// What a memo keys an input by when the input holds credentials (the headers sent upstream, `Authorization`
/// among them): 128 bits of two SipHash-1-3 runs (`Hasher`, keyed per process) salted with secret random values, so
/// that the memo keeps no byte of the input past the request (attack7: the key memos held every input they had seen,
/// credentials included, until pushed out).
///
/// Two inputs share a digest by chance alone, about one in 2^105 among 4,096 held; nor can a client search for one:
/// the key and the salts are this process's, and no digest ever leaves it.
package struct KeyedDigest: Hashable, Sendable {
    private let high: UInt64
    private let low: UInt64

    /// Salts drawn once per process, from the system's generator: keyed even where `Hasher`'s own seed is fixed
    /// (`SWIFT_DETERMINISTIC_HASHING`).
    private static let salts: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    package init(_ bytes: some Sequence<UInt8>) {
        var first = Hasher()
        var second = Hasher()
        first.combine(Self.salts.0)
        second.combine(Self.salts.1)
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            first.combine(bytes: UnsafeRawBufferPointer(buffer))
            second.combine(bytes: UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { buffer in
                first.combine(bytes: buffer)
                second.combine(bytes: buffer)
            }
        }
        high = UInt64(UInt(bitPattern: first.finalize()))
        low = UInt64(UInt(bitPattern: second.finalize()))
    }

    /// A memo's dictionary hashes 64 of the bits: they are as well spread as all 128.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(high)
    }

    /// The two halves in hexadecimal, for a memo keyed by strings.
    package var hex: String { String(high, radix: 16) + ":" + String(low, radix: 16) }
}
