/// A value read at a path by `JSONScanner`.
///
/// Scalars are materialised; objects and arrays are given by their byte range in the scanned input,
/// so that they can be spliced or read further with `JSONScanner.value(in:range:at:)`.
package enum JSONValue: Sendable, Equatable {
    /// The string with every escape decoded and surrogate pairs joined.
    case string(String)
    /// The number's text exactly as written (any size, never rounded).
    case number(String)
    case bool(Bool)
    case null
    /// The byte range of the object, from `{` to `}` inclusive.
    case object(Range<Int>)
    /// The byte range of the array, from `[` to `]` inclusive, and its number of elements.
    case array(Range<Int>, count: Int)
}

extension JSONValue {
    /// The value for a message about an upstream page: scalars shown (strings and numbers cut at 40 characters),
    /// containers named by kind.
    package var shortDescription: String {
        switch self {
        case .string(let text): "the string \"\(text.prefix(40))\""
        case .number(let text): "the number \(text.prefix(40))"
        case .bool(let flag): "\(flag)"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }
}
