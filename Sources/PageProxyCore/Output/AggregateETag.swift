import Foundation

/// The strong `ETag` of an aggregated answer: a SHA-256 of its body, computed as the body is built.
///
/// Only merged answers carry one: an NDJSON stream's head is sent before its body is known.
package struct AggregateETag: Sendable {
    private var hasher = SHA256()

    package init() {}

    package mutating func update(_ bytes: some Collection<UInt8>) {
        hasher.update(bytes)
    }

    /// `"<first 32 hex digits of the SHA-256>"`, quoted as RFC 9110 §8.8.3 requires.
    package mutating func finalize() -> String {
        "\"" + String(SHA256.hex(hasher.finalize()).prefix(32)) + "\""
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
