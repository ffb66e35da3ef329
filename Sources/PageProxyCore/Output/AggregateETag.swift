import Foundation

/// The strong `ETag` of a merged answer, built from its pages' identities and the request's shape, not from its body.
///
/// Issue 13: hashing a whole body on every request cost half the CPU of a walk through the cache. A page the cache
/// holds has an identity already, the XXH64 of its stored body, kept in its entry (so it is the same across
/// requests and restarts, and changes with any byte of the body). The items an answer takes from a page depend only
/// on that body, the items path and how many items were kept (`_max_items`), so each page adds its checksum, item
/// count and framed length, and the shape (items path, limits) comes first: any change of an item byte changes
/// the tag (XXH64 catches any accidental change; it is not a cryptographic hash). A page served stale adds its stored
/// checksum too. A page that was not stored (cache off, `no-store`, an uncached fetch) has no identity, and adds the
/// SHA-256 of the bytes it contributes instead: such pages came from the upstream anyway.
///
/// What identifies the answer is gathered as a short record (tens of bytes a page) and hashed once, with two keyed
/// XXH64s (issue 13: a SHA-256 over the records of a one-page walk was 2 % of it). Their 128 bits add nothing to the
/// pages' own 64-bit identities, and need not: the tag must change when the bytes would, the checksums see to that.
///
/// Only merged answers carry one: an NDJSON stream's head is sent before its body is known.
package struct AggregateETag: Sendable {
    private var record = ByteWriter()

    /// - Parameter shape: everything besides the pages that decides the answer's bytes (the items path, the limits).
    package init(shape: String) {
        record.bytes.reserveCapacity(64 + shape.utf8.count)
        part(Self.version)
        // The string's own bytes, appended as one run (a generic collection of them was appended byte by byte).
        record.bytes.append(UInt8(ascii: "b"))
        record.append(UInt64(shape.utf8.count))
        record.bytes.append(contentsOf: shape.utf8)
    }

    /// What this derivation is called, first in every record: a tag made another way can never equal one made so.
    private static let version = Array("merged-v3".utf8)

    /// Adds a page of the answer: `framed` is what it adds to the body (its items, with the array's punctuation).
    package mutating func add(_ page: Page, framed: some Collection<UInt8>) {
        add(page, framedCount: framed.count) { framed }
    }

    /// Adds a page of the answer that adds `framedCount` bytes to the body; `framed` gives them, and is asked only
    /// for a page that was not stored (a page sent from its body uncopied has them nowhere else).
    package mutating func add<Framed: Collection<UInt8>>(_ page: Page, framedCount: Int, framed: () -> Framed) {
        guard let checksum = page.storedChecksum else {
            record.bytes.append(UInt8(ascii: "h"))
            record.append(UInt64(framedCount))
            record.bytes.append(contentsOf: SHA256.hash(framed()))
            return
        }
        record.bytes.append(UInt8(ascii: "s"))
        record.append(checksum)
        record.append(UInt64(page.itemCount))
        record.append(UInt64(framedCount))
    }

    /// Adds bytes that no page carries (the array's closing bracket).
    package mutating func update(_ bytes: [UInt8]) {
        part(bytes)
    }

    /// The keys of the two XXH64s whose 128 bits make the tag.
    private static let seeds: (UInt64, UInt64) = (0x5061_6765_5072_6f78, 0x9e37_79b9_7f4a_7c15)

    /// `"<32 hex digits: two keyed XXH64s of all that was added>"`, quoted as RFC 9110 §8.8.3 requires.
    package func finalize() -> String {
        let (high, low) = (XXHash64.hash(record.bytes, seed: Self.seeds.0), XXHash64.hash(record.bytes, seed: Self.seeds.1))
        // Written straight into the string's storage (issue 13: an array of the digits first was an allocation).
        return String(unsafeUninitializedCapacity: 34) { text in
            text[0] = UInt8(ascii: "\"")
            Self.writeHex(high, to: text, at: 1)
            Self.writeHex(low, to: text, at: 17)
            text[33] = UInt8(ascii: "\"")
            return 34
        }
    }

    /// Sixteen lowercase hexadecimal digits of `value`, most significant first, at `start` of `text`.
    private static func writeHex(_ value: UInt64, to text: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        for index in 0..<16 {
            let digit = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0x0f
            text[start + index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
        }
    }

    /// Bytes, tagged and length-prefixed, so that no two sequences of parts read alike.
    private mutating func part(_ bytes: some Collection<UInt8>) {
        record.bytes.append(UInt8(ascii: "b"))
        record.append(UInt64(bytes.count))
        record.bytes.append(contentsOf: bytes)
    }

    /// RFC 9110 §13.1.2 — whether `If-None-Match` (weak comparison) matches `etag`, so the answer is a 304. `*`
    /// matches any current answer, one with no entity tag (`etag` nil: NDJSON) too.
    package static func matches(ifNoneMatch values: [String], etag: String?) -> Bool {
        let opaque = etag.map { HTTPFieldSyntax.opaqueTag($0[...]) }
        return listed(values) { opaque != nil && HTTPFieldSyntax.opaqueTag($0) == opaque }
    }

    /// RFC 9110 §13.1.1 — whether `If-Match` (strong comparison: neither tag weak, §8.8.3.2) matches `etag`; `*`
    /// matches any current answer, one with no entity tag (`etag` nil: NDJSON) too.
    package static func matches(ifMatch values: [String], etag: String?) -> Bool {
        listed(values) { tag in
            guard let etag, !etag.hasPrefix("W/") else { return false }
            return HTTPFieldSyntax.opaqueTag(tag) == tag && tag == etag[...]
        }
    }

    /// Whether a field's list (its values, comma-separated) is `*` or names a tag `isMatch` accepts.
    ///
    /// `*` is the field's whole value or nothing (RFC 9110 §13.1.1, §13.1.2: `"*" / #entity-tag`): in a list with
    /// tags (`"x", *`) the field is invalid, and of what it holds only the tags are used, as §2.2 lets a recipient
    /// recover what it can from an invalid element. Either way that is the safe reading: an `If-Match` so written
    /// fails unless a tag matches (it was taken for `*` and let any answer through), an `If-None-Match` is a 200
    /// unless a tag matches (the whole answer, never a 304 the client's copy may not deserve).
    private static func listed(_ values: [String], _ isMatch: (Substring) -> Bool) -> Bool {
        let members = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: [" ", "\t"]) }.filter { !$0.isEmpty }
        if members == ["*"] { return true }
        return members.contains { $0 != "*" && isMatch($0[...]) }
    }
}
