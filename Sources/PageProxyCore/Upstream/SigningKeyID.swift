/// The key named by an HTTP message signature: the caller's identity where the signature itself differs on every
/// request. RFC 9421 writes it as `Signature-Input: sig1=(…);created=…;keyid="k"` beside `Signature: sig1=:…:`;
/// draft-cavage (Mastodon's and ActivityPub's signed fetch) as `Signature: keyId="k",…,signature="…"` or
/// `Authorization: Signature keyId="k",…`. Hashed whole, each such field gave every request an allowance of its own.
enum SigningKeyID {
    /// Whether a field of this (lowercased) name carries a message signature.
    static func isSignatureField(_ name: String) -> Bool {
        name == "signature" || name == "signature-input"
    }

    /// Whether an `Authorization` value uses draft-cavage's `Signature` scheme.
    static func isSignatureAuthorization(_ value: String) -> Bool {
        value.utf8.count > 10 && value.utf8.prefix(10).map { $0 | 0x20 }.elementsEqual("signature ".utf8)
    }

    /// Every `keyid` parameter's value in `value` (the name in any case), in order, joined by commas; empty when there
    /// is none (RFC 9421's `Signature` names none: its `Signature-Input` does).
    static func keyIDs(in value: String) -> String {
        let bytes = Array(value.utf8)
        let name = Array("keyid=".utf8)
        var ids: [String] = []
        var index = 0
        while index + name.count <= bytes.count {
            // A parameter starts the value or follows a separator: not a run of base64 that happens to spell it.
            let startsParameter = index == 0 || isSeparator(bytes[index - 1])
            guard startsParameter, zip(bytes[index..<(index + name.count)], name).allSatisfy({ $0 | 0x20 == $1 }) else {
                index += 1
                continue
            }
            var end = index + name.count
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let start = end + 1
                end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                ids.append(String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self))
                end += 1
            } else {
                let start = end
                while end < bytes.count, !isSeparator(bytes[end]) { end += 1 }
                ids.append(String(decoding: bytes[start..<end], as: UTF8.self))
            }
            index = end
        }
        return ids.joined(separator: ",")
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ";") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
