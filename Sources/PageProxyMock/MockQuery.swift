/// A request target split into its path and decoded query parameters, plus the URL
/// encoding the mock uses when it writes links.
package struct MockQuery: Sendable {
    package struct Item: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// The path, without query or fragment ("/github/items").
    package var path: String
    /// Query parameters in request order, percent-decoded (`+` reads as a space).
    package var items: [Item]

    package init(path: String, items: [Item]) {
        self.path = path
        self.items = items
    }

    /// Parses an origin-form ("/p?q") or absolute-form ("http://h/p?q") target.
    package init(target: String) {
        var rest = Substring(target)
        if let hash = rest.firstIndex(of: "#") {
            rest = rest[..<hash]
        }
        if !rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":"),
            rest[colon...].hasPrefix("://") {
            let authorityAndPath = rest[rest.index(colon, offsetBy: 3)...]
            rest = authorityAndPath.firstIndex(where: { $0 == "/" || $0 == "?" })
                .map { authorityAndPath[$0...] } ?? "/"
        }
        guard let question = rest.firstIndex(of: "?") else {
            self.init(path: String(rest), items: [])
            return
        }
        let query = rest[rest.index(after: question)...]
        let items = query.split(separator: "&", omittingEmptySubsequences: true).map { pair -> Item in
            if let equals = pair.firstIndex(of: "=") {
                return Item(
                    name: Self.decode(pair[..<equals]),
                    value: Self.decode(pair[pair.index(after: equals)...]))
            }
            return Item(name: Self.decode(pair), value: "")
        }
        self.init(path: String(rest[..<question]), items: items)
    }

    /// The first value of parameter `name`, if present.
    package func value(_ name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// The parameters other than `names`, in request order.
    package func items(excluding names: Set<String>) -> [Item] {
        items.filter { !names.contains($0.name) }
    }

    /// `name=value&…` with both sides percent-encoded, in the given order.
    package static func queryString(_ items: [Item]) -> String {
        items.map(encodePair).joined(separator: "&")
    }

    /// One `name=value` pair, percent-encoded.
    package static func encodePair(_ item: Item) -> String {
        encode(item.name) + "=" + encode(item.value)
    }

    /// Percent-encodes every byte outside the RFC 3986 unreserved set (`A-Z a-z 0-9 - . _ ~`).
    package static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-decodes `text`; `+` becomes a space; malformed escapes stay as written.
    package static func decode(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
