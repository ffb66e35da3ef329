import Foundation

/// The strong `ETag` of a merged answer, built from its pages' identities and the request's shape, not from its body.
///
/// Issue 13: hashing a whole body on every request cost half the CPU of a walk through the cache. A page the cache
/// holds has an identity already, the XXH64 of its stored body, kept in its entry (so it is the same across
/// requests and restarts, and changes with any byte of the body). The items an answer takes from a page depend only
/// on that body, the items path and how many items were kept (`_max_items`), so each page adds its checksum, item
/// count and framed length, and the shape (items path, limits) is hashed first: any change of an item byte changes
/// the tag. A page that was not stored (cache off, `no-store`, a stale or uncached fetch) has no identity, and adds
/// the bytes it contributes instead, hashed with SHA-256 as before: such pages came from the upstream anyway.
///
/// Only merged answers carry one: an NDJSON stream's head is sent before its body is known.
package struct AggregateETag: Sendable {
    private var hasher = SHA256()

    /// - Parameter shape: everything besides the pages that decides the answer's bytes (the items path, the limits).
    package init(shape: String) {
        part(Array("merged-v2".utf8))
        part(Array(shape.utf8))
    }

    /// Adds a page of the answer: `framed` is what it adds to the body (its items, with the array's punctuation).
    package mutating func add(_ page: Page, framed: some Collection<UInt8>) {
        guard let checksum = page.storedChecksum else {
            part(framed)
            return
        }
        var record = ByteWriter(bytes: [UInt8(ascii: "s")])
        record.append(checksum)
        record.append(UInt64(page.itemCount))
        record.append(UInt64(framed.count))
        hasher.update(record.bytes)
    }

    /// Adds bytes that no page carries (the array's closing bracket).
    package mutating func update(_ bytes: [UInt8]) {
        part(bytes)
    }

    /// `"<first 32 hex digits of the SHA-256 of all that was added>"`, quoted as RFC 9110 §8.8.3 requires.
    package mutating func finalize() -> String {
        "\"" + String(SHA256.hex(hasher.finalize()).prefix(32)) + "\""
    }

    /// Bytes, tagged and length-prefixed, so that no two sequences of parts hash alike.
    private mutating func part(_ bytes: some Collection<UInt8>) {
        var length = ByteWriter(bytes: [UInt8(ascii: "b")])
        length.append(UInt64(bytes.count))
        hasher.update(length.bytes)
        hasher.update(bytes)
    }

    /// RFC 9110 §13.1.2 — whether `If-None-Match` (weak comparison) matches `etag`, so the answer is a 304.
    package static func matches(ifNoneMatch values: [String], etag: String) -> Bool {
        let opaque = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for value in values {
            for candidate in value.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: [" ", "\t"])
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
                if tag == opaque { return true }
            }
        }
        return false
    }
}
