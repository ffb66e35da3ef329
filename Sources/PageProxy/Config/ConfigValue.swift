/// A JSON value as written in `config.json`, keeping what `JSONSerialization` loses on Linux: whether a
/// number was an integer literal, that `true` is not `1`, and the order of an object's keys.
enum ConfigValue: Sendable, Equatable {
    /// One `"key": value` pair of an object, in file order.
    struct Member: Sendable, Equatable {
        var key: String
        var value: ConfigValue
    }

    case null
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case number(Double)
    case string(String)
    case array([ConfigValue])
    case object([Member])

    /// What kind of value this is, with an article, for "expected …, found …" messages; never the value.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a non-integer number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The kind and, for scalars, the value itself (strings shortened), for messages about fields that
    /// cannot hold secrets.
    var summary: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "boolean \(flag)"
        case .integer(let number): "integer \(number)"
        case .number(let number): "number \(number)"
        case .string(let text):
            text.count > 40 ? "string \"\(text.prefix(40))…\"" : "string \"\(text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
